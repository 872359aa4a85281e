// Tool and extension records as publishers write them, for tests and benches to
// store in Redis: the shape lives here once, each caller names its module and target.

/** A REST tool `{module}_{name}`; `url` may be absolute or relative, `parameters` in any of the three shapes. */
export function restTool(
  module: string,
  name: string,
  url: string,
  { method = 'GET', parameters = { x: { type: 'string' } } }: { method?: string; parameters?: unknown } = {},
) {
  return { name, module, type: 'restful', restful: { url, method }, description: name, parameters }
}

/** An MCP tool `{module}_{name}` calling the server's tool `tool` (by default its own name). */
export function mcpTool(
  module: string,
  name: string,
  url: string,
  { tool = name, parameters = {} }: { tool?: string; parameters?: unknown } = {},
) {
  return { name, module, type: 'mcp', mcp: { url, tool }, description: name, parameters }
}

/** A prompt extension `name` contributing a prompt of each name in `prompts` (whose text names both). */
export function promptExtension(name: string, prompts: readonly string[], extensionType = 'prompt') {
  return {
    name,
    version: '1',
    extensionType,
    contributes: { prompts: prompts.map((p) => ({ name: p, prompt: `${name} ${p}` })) },
  }
}
