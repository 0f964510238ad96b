import { randomUUID } from 'node:crypto';
import type { LoadOutcome, SaveOutcome } from '../ports/signals.js';
import fs from 'node:fs';
import path from 'node:path';
import type { DefinitionContent } from './definition-content.js';
import type { DefinitionParser } from './definition-parser.js';
import { DEFINITION_KINDS, MAX_PROBE_ID_LENGTH, PROBE_ID_PATTERN, SIGNAL_ID_PATTERN, type DefinitionType, type GoldSchema } from './definition-rules.js';
import { isApplicable } from './gold-schema.js';
import { definitionFile, isRealFolder, readFile, type StoredDefinition, type StoredDefinitions } from './stored-definitions.js';

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


/** Largest definition file load returns (it does not parse it; list refuses files over LIMITS.yamlBytes). */
const MAX_LOAD_BYTES = 4 * 1024 * 1024;

/**
 * Every definition file of the four folders, ordered by type then probe_id; files that cannot be read or parsed
 * within the limits, and symbolic links (never followed), carry `error`. Contents come from `stored`: parsed off
 * the main thread, once per file identity.
 */
export async function listDefinitions(afsDir: string, gold: GoldSchema, stored: StoredDefinitions): Promise<DefinitionListItem[]> {
  const items: DefinitionListItem[] = [];
  for (const kind of DEFINITION_KINDS) {
    const folder = path.join(afsDir, kind.folder);
    let names: string[];
    try {
      // a folder that is a symbolic link is not read: its definitions would live outside the AFS
      if (!(await isRealFolder(folder))) continue;
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
      const content = await stored.readContent(path.join(folder, `${id}.yaml`));
      if (content !== null) items.push(toListItem(id, kind.type, content, gold));
    }
  }
  return items;
}

/** The raw text of a definition (not parsed), without following a symbolic link; absent for a malformed probe_id. */
export async function loadDefinition(afsDir: string, probeId: string): Promise<LoadOutcome> {
  const where = definitionFile(afsDir, probeId);
  if (where === null) return { kind: 'absent' };
  return readFile(where.folder, where.file, MAX_LOAD_BYTES);
}

/**
 * Writes `signals/<probeId>.yaml` atomically: a temporary file in the same folder, then rename (force) or link,
 * which fails when the target exists, so of two concurrent saves without force exactly one wins. The YAML is
 * checked first by `parser` (off the main thread): it must parse within the limits and carry that probe_id.
 */
export async function saveSignal(afsDir: string, probeId: string, yaml: string, force: boolean, parser: DefinitionParser): Promise<SaveOutcome> {
  if (!SIGNAL_ID_PATTERN.test(probeId) || probeId.length > MAX_PROBE_ID_LENGTH) return { kind: 'invalid', message: 'probe_id must match ^probe_[a-z][a-z0-9_]*$' };
  const problem = yamlProblem(await parser.parse(yaml), probeId);
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

/** Why a definition cannot be saved under `probeId` (it must parse within the limits, be a mapping and carry that probe_id), or null. */
function yamlProblem(content: DefinitionContent, probeId: string): string | null {
  if (!content.ok) return `yaml is refused: ${content.error}`;
  if (content.probeId !== probeId) {
    const found = typeof content.probeId === 'string' ? `"${content.probeId.slice(0, 100)}"` : 'missing';
    return `the YAML's probe_id (${found}) differs from the request's probe_id "${probeId}"`;
  }
  return null;
}

function toListItem(probeId: string, type: DefinitionType, content: DefinitionContent, gold: GoldSchema): DefinitionListItem {
  if (!content.ok) return { probe_id: probeId, type, name: null, description: null, contract: null, applicable: null, error: content.error };
  const contract = isRecord(content.contract) ? (content.contract as Record<string, unknown>) : null;
  return {
    probe_id: probeId,
    type,
    name: localized(content.name),
    description: localized(content.description),
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

/** The definitions of one AFS folder: listed, loaded, saved, and read as `stored` reads them (parsed off the main thread, once per file). */
export class AfsDefinitions {
  constructor(
    private readonly afsDir: string,
    private readonly stored: StoredDefinitions,
  ) {}

  /** Every definition file, signals marked applicable to `gold` (listDefinitions). */
  list(gold: GoldSchema): Promise<DefinitionListItem[]> {
    return listDefinitions(this.afsDir, gold, this.stored);
  }

  /** The raw text of a definition (loadDefinition). */
  load(probeId: string): Promise<LoadOutcome> {
    return loadDefinition(this.afsDir, probeId);
  }

  /** Writes `signals/<probeId>.yaml` atomically, after its YAML was checked (saveSignal). */
  save(probeId: string, yaml: string, force: boolean): Promise<SaveOutcome> {
    return saveSignal(this.afsDir, probeId, yaml, force, this.stored.parser);
  }

  /** The parsed content of definition `probeId`; absent for a malformed id, a folder that is a link, or no regular file. */
  read(probeId: string): Promise<StoredDefinition> {
    return this.stored.read(this.afsDir, probeId);
  }
}
