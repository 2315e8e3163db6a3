/** How one attempt went, as the outbox records it. */
export interface SendOutcome {
  /** `retrying`: a transient failure (tried again later); `failed`: permanent. */
  status: 'sent' | 'retrying' | 'failed';
  /** The provider's answer, for the log. */
  response: string;
  /** Device tokens the provider says are dead (removed from the user). */
  deadTokens: string[];
}

/** One device's answer among several. */
export interface TokenOutcome {
  token: string;
  status: SendOutcome['status'];
  response: string;
  dead?: boolean;
}

const MAX_RESPONSE = 1000;

/** A message to several devices: sent when any device took it, else retried when any failure was transient. */
export function combine(outcomes: TokenOutcome[]): SendOutcome {
  const status = outcomes.some((o) => o.status === 'sent') ? 'sent' : outcomes.some((o) => o.status === 'retrying') ? 'retrying' : 'failed';
  const response = outcomes.length === 1
    ? outcomes[0]!.response
    : outcomes.map((o) => `…${o.token.slice(-6)}: ${o.response}`).join('; ');
  return { status, response: response.slice(0, MAX_RESPONSE), deadTokens: outcomes.filter((o) => o.dead).map((o) => o.token) };
}

/** HTTP statuses worth another try: throttled, or the provider's own trouble. */
export const transientStatus = (status: number) => status === 429 || status >= 500;

/** A network failure (refused, reset, timed out): always worth another try. */
export function networkOutcome(err: unknown): Pick<SendOutcome, 'status' | 'response'> {
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  return { status: 'retrying', response: (e.cause?.code ?? e.code ?? e.cause?.message ?? e.message ?? String(err)).slice(0, MAX_RESPONSE) };
}

/** The base URL with the provider's path appended (a base may carry a path prefix of its own). */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
