import type { NarrativeOutcome } from '../metrics/metrics.js';

/** What is sent to the language model: instructions, the material, and an output budget. */
export interface NarrativePrompt {
  readonly system: string;
  readonly user: string;
  readonly maxTokens: number;
}

/**
 * Why a call failed: the API answered an HTTP error, did not answer in time, could not be reached, answered
 * without text, or anything else (the client could not be loaded, an unexpected error).
 */
export type WriteFailure = Exclude<NarrativeOutcome, 'ok'>;

/** The model's text and the model name the API reports, or why it failed and a message fit for clients (names no secret). */
export type WriteOutcome = { ok: true; text: string; model: string } | { ok: false; failure: WriteFailure; message: string };

/** Port to the language-model API; implementations translate their SDK's errors and never throw. */
export interface LanguageModel {
  write(prompt: NarrativePrompt): Promise<WriteOutcome>;
}
