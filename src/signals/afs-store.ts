import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isMap, isScalar } from 'yaml';
import { DEFINITION_KINDS, LIMITS, MAX_PROBE_ID_LENGTH, PROBE_ID_PATTERN, SIGNAL_ID_PATTERN, kindOfProbeId, type DefinitionType, type GoldSchema } from './definition-rules.js';
import { isApplicable } from './gold-schema.js';
import { parseYamlSafely, toPlainData } from './safe-yaml.js';

/** Text in the three languages. */
export interface LocalizedText {
  en: string;
  de: string;
  fr: string;
}

/** One definition file as listed (contract schema `SignalListItem`). */
export interface DefinitionListItem {
  probe_id: string;
  type: DefinitionType;
  name: LocalizedText | null;
  description: LocalizedText | null;
  contract: Record<string, unknown> | null;
  applicable: boolean | null;
  error: string | null;
}

/** Outcome of a save: written, refused because the file exists, or refused because the YAML is unfit. */
export type SaveOutcome = { kind: 'saved'; path: string } | { kind: 'exists' } | { kind: 'invalid'; message: string };

/** Largest definition file read by list and load. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** Every definition file of the four folders, ordered by type then probe_id; unreadable files carry `error`. */
export async function listDefinitions(afsDir: string, gold: GoldSchema): Promise<DefinitionListItem[]> {
  const items: DefinitionListItem[] = [];
  for (const kind of DEFINITION_KINDS) {
    const folder = path.join(afsDir, kind.folder);
    let names: string[];
    try {
      names = await fs.promises.readdir(folder);
    } catch {
      continue;
    }
    const ids = names
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => name.slice(0, -'.yaml'.length))
      .filter((id) => id.startsWith(kind.prefix) && id.length <= MAX_PROBE_ID_LENGTH && PROBE_ID_PATTERN.test(id))
      .sort();
    for (const id of ids) {
      const item = await readListItem(path.join(folder, `${id}.yaml`), id, kind.type, gold);
      if (item !== null) items.push(item);
    }
  }
  return items;
}

/** The raw text of a definition, or null when no file has that probe_id. */
export async function loadDefinition(afsDir: string, probeId: string): Promise<string | null> {
  const kind = kindOfProbeId(probeId);
  if (kind === undefined || !PROBE_ID_PATTERN.test(probeId) || probeId.length > MAX_PROBE_ID_LENGTH) return null;
  const file = path.join(afsDir, kind.folder, `${probeId}.yaml`);
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return null;
    if (stat.size > MAX_FILE_BYTES) throw new Error(`${file} is larger than ${MAX_FILE_BYTES} bytes`);
    return await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

/**
 * Writes `signals/<probeId>.yaml` atomically: a temporary file in the same folder, then rename (force) or link,
 * which fails when the target exists, so of two concurrent saves without force exactly one wins.
 */
export async function saveSignal(afsDir: string, probeId: string, yaml: string, force: boolean): Promise<SaveOutcome> {
  if (!SIGNAL_ID_PATTERN.test(probeId) || probeId.length > MAX_PROBE_ID_LENGTH) return { kind: 'invalid', message: 'probe_id must match ^probe_[a-z][a-z0-9_]*$' };
  const problem = yamlProblem(yaml, probeId);
  if (problem !== null) return { kind: 'invalid', message: problem };

  const signalsDir = path.resolve(afsDir, 'signals');
  const target = path.join(signalsDir, `${probeId}.yaml`);
  if (path.dirname(target) !== signalsDir || path.basename(target) !== `${probeId}.yaml`) throw new Error('save target escapes the signals folder');
  await fs.promises.mkdir(signalsDir, { recursive: true });
  const folder = await fs.promises.lstat(signalsDir);
  if (!folder.isDirectory()) throw new Error(`${signalsDir} is not a directory (symbolic links are not followed)`);

  const temporary = path.join(signalsDir, `.${probeId}.${process.pid}.${randomUUID()}.tmp`);
  const handle = await fs.promises.open(temporary, 'wx', 0o644);
  try {
    try {
      await handle.writeFile(yaml, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (force) {
      await fs.promises.rename(temporary, target);
    } else {
      try {
        await fs.promises.link(temporary, target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return { kind: 'exists' };
        throw err;
      }
    }
  } finally {
    await fs.promises.rm(temporary, { force: true });
  }
  return { kind: 'saved', path: `signals/${probeId}.yaml` };
}

/** Why the YAML cannot be saved under `probeId` (it must parse, be a mapping and carry that probe_id), or null. */
function yamlProblem(yaml: string, probeId: string): string | null {
  const parsed = parseYamlSafely(yaml);
  if (parsed.doc === null) return `yaml does not parse: ${parsed.errors.map((error) => error.message).slice(0, 3).join('; ')}`;
  const root = parsed.doc.contents;
  if (!isMap(root)) return 'yaml must be a mapping with probe_id, type, name and contract';
  const pair = root.items.find((item) => isScalar(item.key) && item.key.value === 'probe_id');
  const value = isScalar(pair?.value) ? pair.value.value : undefined;
  if (value !== probeId) {
    const found = typeof value === 'string' ? `"${value.slice(0, 100)}"` : 'missing';
    return `the YAML's probe_id (${found}) differs from the request's probe_id "${probeId}"`;
  }
  return null;
}

async function readListItem(file: string, probeId: string, type: DefinitionType, gold: GoldSchema): Promise<DefinitionListItem | null> {
  const unreadable = (error: string): DefinitionListItem => ({ probe_id: probeId, type, name: null, description: null, contract: null, applicable: null, error });
  let text: string;
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return null;
    if (stat.size > LIMITS.yamlBytes) return unreadable(`the file is larger than ${LIMITS.yamlBytes} bytes`);
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    return unreadable(`the file cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const parsed = parseYamlSafely(text);
  if (parsed.doc === null) return unreadable(parsed.errors.map((error) => error.message).slice(0, 3).join('; '));
  let data: unknown;
  try {
    data = toPlainData(parsed.doc);
  } catch (err) {
    return unreadable(`the YAML cannot be read: ${(err as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return unreadable('the document is not a mapping');
  const record = data as Record<string, unknown>;
  const contract = isRecord(record['contract']) ? (record['contract'] as Record<string, unknown>) : null;
  return {
    probe_id: probeId,
    type,
    name: localized(record['name']),
    description: localized(record['description']),
    contract,
    applicable: type === 'signal' ? contract !== null && isApplicable(contract, gold) : null,
    error: null,
  };
}

function isRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A {en, de, fr} text; a missing de or fr is filled from en; null when there is no English text. */
function localized(value: unknown): LocalizedText | null {
  if (!isRecord(value)) return null;
  const text = value as Record<string, unknown>;
  const en = text['en'];
  if (typeof en !== 'string') return null;
  const pick = (language: string): string => (typeof text[language] === 'string' ? (text[language] as string) : en);
  return { en, de: pick('de'), fr: pick('fr') };
}
