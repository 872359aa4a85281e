/** GET /v1/models' list: each model the service routes, as OpenAI lists models. */
export function modelList(models: readonly string[]) {
  return {
    object: 'list' as const,
    data: [...new Set(models)].map((id) => ({ id, object: 'model' as const, created: 0, owned_by: 'ai-prompt-shell' })),
  }
}
