import type { GrpcMethod } from './grpc-descriptor'
import type { GrpcToolRecord } from './types'
import type { SchemaProblem } from './validate'

/**
 * Records are frozen and shared while their text is unchanged (records.ts):
 * a descriptor is decoded once per record text, never per call.
 */
const methods = new WeakMap<GrpcToolRecord, Promise<GrpcMethod | SchemaProblem[]>>()

/**
 * What is wrong with a grpc record that its JSON Schema cannot see: a
 * descriptor that does not decode, a service or method it does not define,
 * a method that streams. None when the record can be called.
 */
export async function grpcProblems(record: GrpcToolRecord): Promise<SchemaProblem[]> {
  const found = await resolved(record)
  return Array.isArray(found) ? found : []
}

/** The method a valid grpc record calls (the catalogue skips the others, so this does not throw for them). */
export async function grpcMethodOf(record: GrpcToolRecord): Promise<GrpcMethod> {
  const found = await resolved(record)
  if (Array.isArray(found)) throw new Error(found.map((p) => `${p.path} ${p.problem}`).join('; '))
  return found
}

function resolved(record: GrpcToolRecord): Promise<GrpcMethod | SchemaProblem[]> {
  let found = methods.get(record)
  if (!found) {
    // Loaded with the first grpc record met, not with the Worker (grpc-descriptor.ts says why).
    found = import('./grpc-descriptor').then(({ resolveMethod }) => resolveMethod(record.grpc))
    methods.set(record, found)
  }
  return found
}
