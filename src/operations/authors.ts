import type { Caller } from '../auth/caller.js';
import { invalidRequest } from '../common/problems.js';

/**
 * The author the server records for a write: with sign-in always the caller (an author sent in the body is
 * ignored: nobody writes in another's name); without, the author the request gave, if any.
 */
export const recordedAuthor = (caller: Caller, offered: string | undefined): string | undefined =>
  caller.mode === 'oidc' ? (caller.name ?? caller.sub ?? undefined) : offered;

/**
 * With sign-in, a cell's replies change only through the reply operations, each recorded in its author's name:
 * `replies` in the `updates` of a cell is 400 (without sign-in it is merged like any member).
 */
export function assertRepliesUntouched(caller: Caller, updates: Record<string, unknown>): void {
  if (caller.mode === 'oidc' && Object.hasOwn(updates, 'replies')) {
    throw invalidRequest([{ in: 'body', name: 'updates.replies', message: 'with sign-in, replies are added through the reply operation only' }]);
  }
}
