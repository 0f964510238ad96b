import { APIConnectionError, APIConnectionTimeoutError, APIError, type Anthropic } from '@anthropic-ai/sdk';
import type { LanguageModel, WriteOutcome } from './language-model.js';

/**
 * The Anthropic Messages API (`POST /v1/messages`) through the SDK client. Any failure - an HTTP error, no
 * connection, no answer within `timeoutMs`, an answer without text - is a failure message that names the
 * HTTP status or error type only (never the key or the upstream message).
 */
export function anthropicLanguageModel(client: Anthropic, model: string, timeoutMs: number): LanguageModel {
  return {
    async write(prompt) {
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => {
          controller.abort();
          resolve('timeout');
        }, timeoutMs);
      });
      try {
        const call = client.messages.create(
          {
            model,
            max_tokens: prompt.maxTokens,
            system: prompt.system,
            messages: [{ role: 'user', content: prompt.user }],
          },
          { signal: controller.signal, timeout: timeoutMs, maxRetries: 0 },
        );
        call.catch(() => {}); // a late rejection after the deadline must not go unhandled
        const message = await Promise.race([call, deadline]);
        if (message === 'timeout') return timedOut(timeoutMs);
        const text = message.content
          .flatMap((block) => (block.type === 'text' ? [block.text] : []))
          .join('')
          .trim();
        if (text === '') return { ok: false, failure: 'no_text', message: 'The language-model API returned no text.' };
        return { ok: true, text, model: typeof message.model === 'string' && message.model !== '' ? message.model : model };
      } catch (err) {
        if (controller.signal.aborted) return timedOut(timeoutMs);
        return fromError(err, timeoutMs);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const timedOut = (timeoutMs: number): WriteOutcome => ({ ok: false, failure: 'timeout', message: `The language-model API did not answer within ${timeoutMs} ms.` });

function fromError(err: unknown, timeoutMs: number): WriteOutcome {
  if (err instanceof APIConnectionTimeoutError) return timedOut(timeoutMs);
  if (err instanceof APIConnectionError) return { ok: false, failure: 'unreachable', message: 'The language-model API could not be reached.' };
  if (err instanceof APIError && typeof err.status === 'number') {
    const type = err.type;
    const named = typeof type === 'string' && /^[a-z_]{1,40}$/.test(type) ? ` (${type})` : '';
    return { ok: false, failure: 'api_error', message: `The language-model API answered HTTP ${err.status}${named}.` };
  }
  return { ok: false, failure: 'failed', message: 'The language-model API call failed.' };
}
