import { MAX_ID_LENGTH, checkId } from '../catalog'
import { ServiceError, clip } from '../errors'

/** A stored prompt as an OpenAI-shaped body names it: OpenAI Responses' own `prompt` member. */
export interface PromptParam {
  id: string
  version?: string | number | null | undefined
  variables?: Record<string, unknown> | null | undefined
}

/** The members of a body that can name a stored prompt, in each client's spelling. */
export interface PromptNaming {
  model?: string | undefined
  prompt?: PromptParam | null | undefined
  /** LiteLLM's spelling. */
  prompt_id?: string | undefined
  prompt_version?: string | number | null | undefined
  prompt_variables?: Record<string, unknown> | undefined
  /** With the `prompt:<id>` model: the variables, each a string. */
  metadata?: Record<string, string> | null | undefined
}

/** Which prompt a body asks for: its id, the version (none: the current one), its variables, and the LLM model. */
export interface PromptRef {
  id: string
  version: number | undefined
  variables: Record<string, unknown>
  /** The model the body names for the LLM; undefined when `model` named the prompt. */
  model: string | undefined
}

const MODEL_PREFIX = 'prompt:'
/** The largest version number a body may name, as `?version=` takes it (9 digits). */
const MAX_VERSION = 999_999_999

/**
 * The prompt a body names, first match wins: `prompt: {id, version,
 * variables}`; LiteLLM's `prompt_id`, `prompt_version`, `prompt_variables`;
 * the model `prompt:<id>` or `prompt:<id>@<version>`, for clients that can
 * send nothing else (its variables are then `metadata`'s). None: undefined.
 * The id and the version are checked here, before anything is read.
 */
export function promptRefOf(body: PromptNaming): PromptRef | undefined {
  const model = body.model
  if (body.prompt) {
    const { id, version, variables } = body.prompt
    return checked(id, version ?? undefined, variables ?? {}, model, 'prompt.version')
  }
  if (body.prompt_id !== undefined) {
    return checked(
      body.prompt_id,
      body.prompt_version ?? undefined,
      body.prompt_variables ?? {},
      model,
      'prompt_version',
    )
  }
  if (model?.startsWith(MODEL_PREFIX)) {
    const named = model.slice(MODEL_PREFIX.length)
    const at = named.lastIndexOf('@')
    const [id, version] = at < 0 ? [named, undefined] : [named.slice(0, at), named.slice(at + 1)]
    return checked(id, version, body.metadata ?? {}, undefined, 'model')
  }
  return undefined
}

function checked(
  id: string,
  version: string | number | undefined,
  variables: Record<string, unknown>,
  model: string | undefined,
  versionParam: string,
): PromptRef {
  if (id.length > MAX_ID_LENGTH) {
    throw new ServiceError('BAD_REQUEST', `the prompt id '${clip(id, 64)}' is longer than ${MAX_ID_LENGTH} characters`)
  }
  checkId('prompt', id)
  return {
    id,
    version: version === undefined ? undefined : versionNumber(version, versionParam),
    variables,
    model: model?.startsWith(MODEL_PREFIX) ? undefined : model,
  }
}

/** `3` or `"3"`: a version number, 1 or more. */
function versionNumber(version: string | number, param: string): number {
  const n = typeof version === 'number' ? version : /^[1-9][0-9]{0,8}$/.test(version) ? Number(version) : NaN
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_VERSION) {
    throw new ServiceError(
      'BAD_REQUEST',
      `${param} must be a version number, 1 or more; got '${clip(String(version), 16)}'`,
      {
        extra: { param },
      },
    )
  }
  return n
}
