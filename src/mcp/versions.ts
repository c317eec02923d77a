// What each protocol version changes, as data: every version-dependent rule
// asks this table, nothing compares version strings elsewhere.

export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];
export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

export interface VersionRules {
  /** JSON-RPC batches: added in 2025-03-26 (basic/index.mdx "Batching"), removed in 2025-06-18. */
  readonly batches: boolean;
  /** Tool `annotations` (readOnlyHint…), from 2025-03-26. */
  readonly toolAnnotations: boolean;
  /** Tool `title`, `outputSchema` and results' `structuredContent`, from 2025-06-18. */
  readonly structuredOutput: boolean;
  /**
   * Tool input that fails validation is a tool result with isError: true, not
   * -32602, from 2025-11-25 (SEP-1303: the model can read it and correct itself).
   */
  readonly inputErrorsAsToolResults: boolean;
  /** The `completions` server capability, from 2025-03-26. */
  readonly completions: boolean;
  /** notifications/progress may carry a `message`, from 2025-03-26. */
  readonly progressMessage: boolean;
}

export const VERSION_RULES: Readonly<Record<ProtocolVersion, VersionRules>> = {
  '2024-11-05': {
    batches: false,
    toolAnnotations: false,
    structuredOutput: false,
    inputErrorsAsToolResults: false,
    completions: false,
    progressMessage: false,
  },
  '2025-03-26': { batches: true, toolAnnotations: true, structuredOutput: false, inputErrorsAsToolResults: false, completions: true, progressMessage: true },
  '2025-06-18': { batches: false, toolAnnotations: true, structuredOutput: true, inputErrorsAsToolResults: false, completions: true, progressMessage: true },
  '2025-11-25': { batches: false, toolAnnotations: true, structuredOutput: true, inputErrorsAsToolResults: true, completions: true, progressMessage: true },
};

/**
 * The client's version when we support it, else our latest. A mismatch is
 * never an error: the client decides whether to go on (lifecycle.mdx,
 * "Version Negotiation").
 */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  return (PROTOCOL_VERSIONS as readonly unknown[]).includes(requested) ? (requested as ProtocolVersion) : LATEST_PROTOCOL_VERSION;
}
