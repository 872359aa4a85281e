/**
 * A grpc record's descriptor decoded into the method it calls. Only
 * grpc.ts imports this module, and only by import() (types aside): protobuf's own
 * descriptors (descriptor.proto, booted when @bufbuild/protobuf/wkt loads)
 * cost a Worker's start tens of milliseconds that a catalogue without grpc
 * tools need not pay.
 */
import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf'
import type { DescMethod, DescMethodUnary, DescService } from '@bufbuild/protobuf'
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, file_google_protobuf_struct } from '@bufbuild/protobuf/wkt'
import { base64Decode } from '@bufbuild/protobuf/wire'
import type { GrpcToolRecord } from './types'
import type { SchemaProblem } from './validate'
import { describeError } from '../log'

/** The method a grpc tool calls, ready for a Connect or gRPC-Web transport. */
export interface GrpcMethod {
  method: DescMethodUnary
  /** Binary protobuf on the wire (a descriptor was given); else Connect's JSON codec. */
  binary: boolean
}

/** A fully-qualified protobuf name (`greet.v1.GreetService`) and a method name (`Greet`). */
const SERVICE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/
const METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const STRUCT_PROTO = 'google/protobuf/struct.proto'

/**
 * The method a grpc record calls, or what is wrong with the record that its
 * JSON Schema cannot see: a descriptor that does not decode, a service or
 * method it does not define, a method that streams.
 */
export function resolveMethod(spec: GrpcToolRecord['grpc']): GrpcMethod | SchemaProblem[] {
  if (!SERVICE_NAME.test(spec.service)) {
    return [{ path: '$.grpc.service', problem: 'must be a fully-qualified protobuf service name (package.Service)' }]
  }
  if (!METHOD_NAME.test(spec.method)) return [{ path: '$.grpc.method', problem: 'must be a protobuf method name' }]
  if (spec.descriptor === undefined) return { method: untypedMethod(spec.service, spec.method), binary: false }

  let service: DescService | undefined
  try {
    const set = fromBinary(FileDescriptorSetSchema, base64Decode(spec.descriptor))
    service = createFileRegistry(set).getService(spec.service)
  } catch (e) {
    const why = describeError(e)
    return [{ path: '$.grpc.descriptor', problem: `is not a base64 FileDescriptorSet that decodes: ${why}` }]
  }
  if (!service) {
    return [{ path: '$.grpc.service', problem: `names service ${spec.service}, which the descriptor does not define` }]
  }
  const method = service.methods.find((m) => m.name === spec.method)
  if (!method) {
    const known = service.methods.map((m) => m.name).join(', ') || 'none'
    return [
      { path: '$.grpc.method', problem: `names ${spec.method}, which ${spec.service} does not have (it has ${known})` },
    ]
  }
  if (!isUnary(method)) {
    const kind = method.methodKind.replace('_', '-')
    return [
      { path: '$.grpc.method', problem: `names ${spec.method}, a ${kind} method: only unary methods can be called` },
    ]
  }
  return { method, binary: true }
}

function isUnary(method: DescMethod): method is DescMethodUnary {
  return method.methodKind === 'unary'
}

/**
 * Without a descriptor, the method takes and answers google.protobuf.Struct,
 * whose proto3 JSON form is any JSON object: Connect's JSON codec then sends
 * the parameters as they are and hands back the answer as it came.
 */
function untypedMethod(serviceName: string, methodName: string): DescMethodUnary {
  const dot = serviceName.lastIndexOf('.')
  const file = create(FileDescriptorProtoSchema, {
    name: `ai-prompt-shell/untyped/${serviceName}.proto`,
    package: dot === -1 ? '' : serviceName.slice(0, dot),
    dependency: [STRUCT_PROTO],
    syntax: 'proto3',
    service: [
      {
        name: serviceName.slice(dot + 1),
        method: [{ name: methodName, inputType: '.google.protobuf.Struct', outputType: '.google.protobuf.Struct' }],
      },
    ],
  })
  const registry = createFileRegistry(file, (name) => (name === STRUCT_PROTO ? file_google_protobuf_struct : undefined))
  return registry.getService(serviceName)?.methods[0] as DescMethodUnary
}
