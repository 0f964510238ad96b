import { isMap } from 'yaml';
import { parseYamlSafely, toPlainData } from './safe-yaml.js';

/**
 * What a definition text holds for the server (list, save, explanations, narratives): its top-level `probe_id`,
 * `name`, `description` and `contract` as plain data (undefined when absent), or why it cannot be read.
 */
export type DefinitionContent =
  | { ok: true; probeId: unknown; name: unknown; description: unknown; contract: unknown }
  | { ok: false; error: string };

/**
 * Reads a definition text within the limits of parseYamlSafely (docs/signal-language.md, "Limits on the text").
 * Costs as much as parsing the text: run it in the definition parser's thread, never on the server's main thread.
 */
export function readDefinitionContent(text: string): DefinitionContent {
  const parsed = parseYamlSafely(text);
  if (parsed.doc === null) return { ok: false, error: parsed.errors.slice(0, 3).map((error) => error.message).join('; ') };
  if (!isMap(parsed.doc.contents)) return { ok: false, error: 'the document is not a mapping' };
  let data: unknown;
  try {
    data = toPlainData(parsed.doc);
  } catch (err) {
    return { ok: false, error: `the YAML cannot be read: ${(err as Error).message}` };
  }
  const record = data as Record<string, unknown>;
  const member = (key: string): unknown => (Object.hasOwn(record, key) ? record[key] : undefined);
  return { ok: true, probeId: member('probe_id'), name: member('name'), description: member('description'), contract: member('contract') };
}
