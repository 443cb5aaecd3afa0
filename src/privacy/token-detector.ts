import { type Detector, type Match, scan } from './detector.js';
import { HIDDEN, maskSecret } from './masks.js';

/**
 * Secrets: API keys with a known prefix, JWTs, `Bearer` tokens and passwords in URLs.
 *
 * - Prefixed keys: OpenAI `sk-`, `sk-proj-`, `sk-svcacct-`, `sk-admin-`; Anthropic `sk-ant-`; GitHub
 *   `ghp_` `gho_` `ghu_` `ghs_` `ghr_` `github_pat_`; Slack `xoxa-` `xoxb-` `xoxp-` `xoxo-` `xoxr-` `xoxs-`;
 *   GitLab `glpat-`; Stripe `sk_live_` `rk_live_` `pk_live_` (and `_test_`); Google `AIza`. The body must
 *   be at least 16 key characters and mix letters and digits, so `sk-learn-is-a-library` is prose.
 * - AWS access key ids: `AKIA` or `ASIA` and 16 upper-case letters or digits.
 * - JWTs: `eyJ….eyJ….signature`.
 * - `Bearer <token>` with a token of 16+ characters mixing letters and digits.
 * - `scheme://user:password@host`: only the password is masked.
 */

const PREFIXED =
  /(?<![A-Za-z0-9_-])(sk-ant-|sk-proj-|sk-svcacct-|sk-admin-|sk-|gh[pousr]_|github_pat_|xox[abposr]-|glpat-|(?:sk|rk|pk)_(?:live|test)_|AIza)([A-Za-z0-9_-]{16,})(?![A-Za-z0-9_-])/g;
const AWS_ACCESS_KEY = /(?<![A-Za-z0-9])(AKIA|ASIA)([A-Z0-9]{16})(?![A-Za-z0-9])/g;
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*(?![A-Za-z0-9_-])/g;
const BEARER = /(?<![A-Za-z0-9_-])(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)(?![A-Za-z0-9._~+/=-])/gi;
const URL_PASSWORD = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:@/?#]*:)([^\s/?#]+)@/g;

const looksRandom = (body: string): boolean => /[0-9]/.test(body) && /[A-Za-z]/.test(body);

function prefixed(match: RegExpExecArray): string | undefined {
  const prefix = match[1] ?? '';
  const body = match[2] ?? '';
  return looksRandom(body) ? maskSecret(prefix, body) : undefined;
}

export const tokenDetector: Detector<'token'> = {
  name: 'token',
  rank: 1,
  find: (text): Match[] => [
    ...scan(text, PREFIXED, prefixed),
    ...scan(text, AWS_ACCESS_KEY, prefixed),
    ...(text.includes('eyJ') ? scan(text, JWT, () => `eyJ${HIDDEN}.eyJ${HIDDEN}.${HIDDEN}`) : []),
    ...scan(text, BEARER, prefixed),
    ...(text.includes('://') ? scan(text, URL_PASSWORD, (match) => `${match[1] ?? ''}${HIDDEN}@`) : []),
  ],
};
