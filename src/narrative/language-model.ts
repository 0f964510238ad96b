/** What is sent to the language model: instructions, the material, and an output budget. */
export interface NarrativePrompt {
  readonly system: string;
  readonly user: string;
  readonly maxTokens: number;
}

/** The model's text and the model name the API reports, or a failure message fit for clients (names no secret). */
export type WriteOutcome = { ok: true; text: string; model: string } | { ok: false; message: string };

/** Port to the language-model API; implementations translate their SDK's errors and never throw. */
export interface LanguageModel {
  write(prompt: NarrativePrompt): Promise<WriteOutcome>;
}
