// The REST example tools, answering as the records under examples/tools/
// describe them, from canned data about the example project (the environ
// codebase.current_project: shop-api, a Go service):
//   GET /codebase/refs/{symbol}?limit=N  codebase_lookup_ref: {"refs": ["file:line: code", ...]}
//   GET /translate/zh/en?code=TEXT       translate_zh_en: {"translated_code": TEXT with known Chinese phrases in English}

/** A REST answer: its status and JSON body. */
export interface RestAnswer {
  status: number
  body: unknown
}

/** Where each symbol of shop-api is referenced. A symbol not listed has no references. */
const REFS: Readonly<Record<string, readonly string[]>> = {
  CreateOrder: [
    'handlers/order.go:27: func (h *OrderHandler) CreateOrder(c *gin.Context) {',
    'main.go:41: orders.POST("", h.CreateOrder)',
  ],
  SaveOrder: [
    'store/order.go:19: func (s *OrderStore) SaveOrder(ctx context.Context, o *Order) error {',
    'handlers/order.go:44: if err := h.store.SaveOrder(c, &order); err != nil {',
    'handlers/order.go:71: return h.store.SaveOrder(c, existing)',
  ],
  DeductStock: [
    'store/order.go:52: func (s *OrderStore) DeductStock(tx *gorm.DB, items []Item) error {',
    'store/order.go:33: // DeductStock runs in SaveOrder\'s transaction only when o.Status == "paid"',
  ],
  ListOrders: [
    'handlers/order.go:88: func (h *OrderHandler) ListOrders(c *gin.Context) {',
    'main.go:42: orders.GET("", h.ListOrders)',
  ],
  Parse: [
    'main.go:23: cfg, err := config.Parse(os.Args[1:])',
    'handlers/order.go:35: id, err := uuid.Parse(c.Param("id"))',
  ],
}

/**
 * What the translator knows, longest first so that a phrase wins over the
 * words inside it. Anything else passes through unchanged.
 */
const PHRASES: readonly (readonly [string, string])[] = [
  ['下单后库存没有扣减', 'the stock is not deducted after an order is placed'],
  ['重复支付时会创建两个订单', 'paying twice creates two orders'],
  ['用户订单很多时获取订单列表需要五秒', 'listing the orders takes five seconds for a user with many orders'],
  ['用户未登录', 'the user is not logged in'],
  ['订单不存在', 'order not found'],
  ['获取订单', 'fetch the order'],
  ['保存订单', 'save the order'],
  ['创建订单', 'create the order'],
  ['参数错误', 'invalid argument'],
  ['支付失败', 'payment failed'],
  ['库存不足', 'out of stock'],
  ['订单', 'order'],
  ['用户', 'user'],
  ['库存', 'stock'],
  ['错误', 'error'],
  ['，', ', '],
  ['。', '.'],
  ['：', ': '],
]

/** The most references an answer lists (the record's `limit` defaults to 20). */
const MAX_LIMIT = 100

/** Answers a REST tool's request, or 404 when the path is no tool's. */
export function restAnswer(method: string, url: URL): RestAnswer {
  if (method !== 'GET') return { status: 405, body: { error: `${method} is not allowed: the example tools are GETs` } }
  const refs = /^\/codebase\/refs\/([^/]+)$/.exec(url.pathname)
  if (refs) {
    let symbol: string
    try {
      symbol = decodeURIComponent(refs[1] as string)
    } catch {
      return { status: 400, body: { error: 'the symbol in the path is not valid percent-encoding' } }
    }
    return lookupRefs(symbol, url.searchParams.get('limit'))
  }
  if (url.pathname === '/translate/zh/en') {
    const code = url.searchParams.get('code')
    if (code === null) return { status: 400, body: { error: 'the query parameter code is missing' } }
    return { status: 200, body: { translated_code: translate(code) } }
  }
  return { status: 404, body: { error: `no example tool at ${url.pathname}` } }
}

function lookupRefs(symbol: string, limitParam: string | null): RestAnswer {
  const limit = limitParam === null ? 20 : Number(limitParam)
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    return { status: 400, body: { error: `limit must be a whole number from 0 to ${MAX_LIMIT}` } }
  }
  const found = Object.hasOwn(REFS, symbol) ? (REFS[symbol] ?? []) : []
  return { status: 200, body: { refs: found.slice(0, limit) } }
}

/** `text` with every known phrase in English. The request line bounds its length (Node's header limit). */
export function translate(text: string): string {
  let translated = text
  for (const [zh, en] of PHRASES) translated = translated.replaceAll(zh, en)
  return translated
}
