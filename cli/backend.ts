import type { AuditPage, AuditQuery } from '../lib/changes/audit'
import type { RecordKind } from '../lib/catalog'
import type { Promotion } from '../lib/publish'
import type { RolloutAnswer, RolloutVersion } from '../lib/rollout'
import type { VersionEntry } from '../lib/store'
import type { RecordFile } from './files'

/**
 * One record a publish wrote: the key (the label's own under a label) and
 * its new version; or, `unchanged`, the version that stores its text already.
 */
export interface Published {
  file: string
  key: string
  version: number
  unchanged: boolean
}

/** A record's versions, newest first, and the label whose own record has them (none: the base's). */
export interface Versions {
  label?: string | undefined
  versions: VersionEntry[]
}

export interface WriteTo {
  label?: string | undefined
  message?: string | undefined
}

/**
 * Where the commands go: Upstash directly (direct.ts), or a deployment's
 * write API (remote.ts). Both answer alike, and fail with an Error carrying
 * the service's `code`.
 */
export interface Backend {
  /** For messages: the URL, and how it is reached. */
  readonly where: string
  /** Whether a publish is one transaction (directly) or one request per record (the API). */
  readonly transactional: boolean
  /** Writes each record with a new version, but those whose key stores the same text as its newest version already. */
  publish(records: readonly RecordFile[], to: WriteTo): Promise<Published[]>
  versions(kind: RecordKind, id: string, label: string | undefined): Promise<Versions>
  /** Writes version `n` of a record again, as a new version (lib/publish/rollback.ts). */
  rollback(kind: RecordKind, id: string, n: number, to: WriteTo): Promise<{ key: string; version: number }>
  promote(from: string, options: PromoteOptions): Promise<Promotion[]>
  /** A page of the audit trail, newest first (lib/changes/audit.ts). */
  audit(query: AuditQuery): Promise<AuditPage>
  /** A prompt's rollout as the label sees it (lib/rollout); started or changed; ended. */
  rollout(id: string, label: string | undefined): Promise<RolloutAnswer>
  startRollout(id: string, rollout: RolloutRequest, label: string | undefined): Promise<RolloutAnswer>
  endRollout(id: string, label: string | undefined): Promise<RolloutAnswer>
}

/** What `PUT /api/prompts/{id}/rollout` takes. */
export interface RolloutRequest {
  versions: RolloutVersion[]
  sticky?: string | undefined
}

export interface PromoteOptions {
  to?: string | undefined
  dryRun: boolean
  message?: string | undefined
  /** Promote without running the tests the deployment's gate runs first (the write API's `force=true`). */
  force?: boolean | undefined
}

/** A publish through the API that failed part way: the records written before the failure stay written. */
export class PartlyPublished extends Error {
  constructor(
    readonly written: Published[],
    readonly failedAt: string,
    override readonly cause: unknown,
  ) {
    super(`failed at ${failedAt}`)
  }
}
