// The gRPC example tool, greeter_greet: greet.v1.GreetService served by
// connect-node (Connect, gRPC-Web and gRPC on one handler). The service is
// read from the descriptor of the record that calls it
// (examples/tools/greeter/greet.json), so the two cannot drift apart.
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf'
import type { Message } from '@bufbuild/protobuf'
import type { GenMessage, GenService } from '@bufbuild/protobuf/codegenv2'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { Code, ConnectError } from '@connectrpc/connect'
import { connectNodeAdapter } from '@connectrpc/connect-node'
import type { IncomingMessage, ServerResponse } from 'node:http'
import greeter from '../../examples/tools/greeter/greet.json'

const SERVICE = greeter.grpc.service
/** The path prefix of the service's RPCs: the record's URL is `/`, so `/greet.v1.GreetService/Greet`. */
export const GRPC_PREFIX = `/${SERVICE}/`
/** A name longer than this is refused before a greeting is built from it. */
const MAX_NAME = 200

// greet.proto's messages as protoc-gen-es would type them (there is no codegen step).
type GreetRequest = Message<'greet.v1.GreetRequest'> & { name: string }
type GreetResponse = Message<'greet.v1.GreetResponse'> & { greeting: string }
type GreetService = GenService<{
  greet: { methodKind: 'unary'; input: GenMessage<GreetRequest>; output: GenMessage<GreetResponse> }
}>

/** The greeting greeter_greet answers for `name`. */
export function greetingFor(name: string): string {
  return `Hello, ${name.trim() || 'there'}!`
}

/** A node:http handler of the greeter's RPCs, built when the server starts. */
export function greeterHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  const registry = createFileRegistry(
    fromBinary(FileDescriptorSetSchema, Buffer.from(greeter.grpc.descriptor, 'base64')),
  )
  const service = registry.getService(SERVICE)
  if (!service) throw new Error(`the greeter record's descriptor has no ${SERVICE}`)
  return connectNodeAdapter({
    // A greeting's request is a name: anything much bigger is refused before it is read.
    readMaxBytes: 64 * 1024,
    routes: (router) =>
      router.service(service as unknown as GreetService, {
        greet: ({ name }) => {
          if (name.length > MAX_NAME)
            throw new ConnectError(`name is over ${MAX_NAME} characters`, Code.InvalidArgument)
          return { greeting: greetingFor(name) }
        },
      }),
  })
}
