/**
 * Rollouts: a prompt served from weighted versions of its record, a
 * caller kept on one by a sticky value (choose.ts); started, shown and
 * ended through the API (manage.ts). The render path applies them (lib/render).
 */
export {
  BUCKETS,
  MAX_ROLLOUT_VERSIONS,
  MAX_STICKY_CHARS,
  bucketOf,
  checkRollout,
  choose,
  decodeRollout,
  versionAt,
} from './choose'
export type { Choice, Rollout, RolloutVersion, StickySource } from './choose'
export { MAX_LABEL_ROLLOUTS, endRollout, getRollout, putRollout } from './manage'
export type { RolloutAnswer } from './manage'
