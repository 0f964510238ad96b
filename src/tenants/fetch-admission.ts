import { AsyncLocalStorage } from 'node:async_hooks';

/** Admits the start of a tenant's fetch into the bounded store cache on behalf of a caller, or throws the problem (429). */
export type FetchAdmission = () => Promise<void>;

interface RequestScope {
  admit: FetchAdmission;
  gone: AbortSignal | undefined;
}

const current = new AsyncLocalStorage<RequestScope>();

/**
 * Runs `work` (one request's handler) with `admit` as the admission of every tenant fetch it starts, however deep
 * the lease that needs it (the services hold the registry itself, not the request's view of it), and `gone`, aborted
 * when the request's client has closed its connection before the answer.
 */
export const withFetchAdmission = <T>(admit: FetchAdmission, work: () => Promise<T>, gone?: AbortSignal): Promise<T> => current.run({ admit, gone }, work);

/** The admission of the request running now; undefined for work the server starts itself (warm-up, refresh, prebuilds). */
export const currentFetchAdmission = (): FetchAdmission | undefined => current.getStore()?.admit;

/** Aborted once the client of the request running now has gone; undefined for work the server starts itself. */
export const currentClientGone = (): AbortSignal | undefined => current.getStore()?.gone;
