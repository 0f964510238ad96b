import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { readAfsSignal } from '../../src/lineage/signal-summary.js';
import { readSignalFromAfs } from '../../src/narrative/enrichment.js';
import { DefinitionParser, PARSER_LIMITS, type ParserLimits } from '../../src/signals/definition-parser.js';
import { LIMITS } from '../../src/signals/definition-rules.js';
import { AfsDefinitions } from '../../src/signals/afs-store.js';
import { StoredDefinitions } from '../../src/signals/stored-definitions.js';
import { nestedLists } from '../helpers/hostile-yaml.js';
import { tempDir } from '../helpers/server.js';
import { EXAMPLE_SIGNAL, signalYaml } from '../helpers/signals.js';
import { until } from '../helpers/until.js';

describe('definition parser thread', function () {
  this.timeout(60_000);
  const parsers: DefinitionParser[] = [];
  const parserWith = (limits: Partial<ParserLimits> = {}): { parser: DefinitionParser; limits: ParserLimits } => {
    const own = { ...PARSER_LIMITS, ...limits };
    const parser = new DefinitionParser(own);
    parsers.push(parser);
    return { parser, limits: own };
  };
  after(async () => {
    for (const parser of parsers) await parser.close();
  });

  it('parses in a thread of its own, one text after the other, in order', async () => {
    const { parser } = parserWith();
    expect(parser.running).to.equal(false);
    const ids = ['probe_a', 'probe_b', 'probe_c'];
    const contents = await Promise.all(ids.map((id) => parser.parse(signalYaml(id))));
    expect(contents.map((content) => content.ok && content.probeId)).to.deep.equal(ids);
    expect(parser.running).to.equal(true);
    expect({ starts: parser.starts, parses: parser.parses }).to.deep.equal({ starts: 1, parses: 3 });
    expect(await parser.parse('a: [1\n')).to.deep.include({ ok: false });
  });

  it('ends the thread when a text takes longer than the time limit, answers it as too costly, and starts a new one for the next', async () => {
    // the limit is read at each text: 1 ms is too short for 700 lists nested ten deep, the next text gets the usual limit
    const { parser, limits } = parserWith({ timeoutMs: 1 });
    const costly = nestedLists(700);
    expect(costly.length).to.be.below(LIMITS.yamlChars);
    const answer = await parser.parse(costly);
    expect(answer).to.deep.equal({ ok: false, error: 'the YAML text took longer than 1 ms to parse (too costly)' });
    expect(parser.running).to.equal(false);
    limits.timeoutMs = PARSER_LIMITS.timeoutMs;
    const next = await parser.parse(EXAMPLE_SIGNAL);
    expect(next).to.deep.include({ ok: true, probeId: 'probe_unbilled_cases' });
    expect(parser.starts).to.equal(2);
  });

  it('refuses a text over the size limit without sending it to the thread', async () => {
    const { parser } = parserWith();
    const answer = await parser.parse(`a: ${'x'.repeat(LIMITS.yamlChars)}\n`);
    expect(answer).to.deep.equal({ ok: false, error: 'the YAML text is larger than 16384 characters' });
    expect(parser.starts).to.equal(0);
  });

  it('ends the thread after the idle time and starts it again for the next text', async () => {
    const { parser } = parserWith({ idleMs: 50 });
    await parser.parse(EXAMPLE_SIGNAL);
    await until(() => !parser.running, { deadline: 10_000, every: 10, what: 'the idle thread to end' });
    expect((await parser.parse(EXAMPLE_SIGNAL)).ok).to.equal(true);
    expect(parser.starts).to.equal(2);
  });
});

describe('stored definitions', function () {
  this.timeout(60_000);
  let data: { dir: string; remove: () => void };
  let outside: { dir: string; remove: () => void };
  let stored: StoredDefinitions;
  const signals = (): string => path.join(data.dir, 'signals');

  beforeEach(() => {
    data = tempDir('ads-stored-definitions-');
    outside = tempDir('ads-outside-afs-');
    fs.mkdirSync(signals());
    stored = new StoredDefinitions(new DefinitionParser());
  });
  afterEach(async () => {
    await stored.parser.close();
    data.remove();
    outside.remove();
  });

  it('parses an unchanged file once, and again when it changes', async () => {
    const file = path.join(signals(), 'probe_unbilled_cases.yaml');
    fs.writeFileSync(file, EXAMPLE_SIGNAL);
    for (let i = 0; i < 3; i++) expect(await stored.read(data.dir, 'probe_unbilled_cases')).to.deep.nested.include({ kind: 'present', 'content.ok': true });
    expect(stored.parser.parses).to.equal(1);
    fs.writeFileSync(file, EXAMPLE_SIGNAL.replace('Discharged cases', 'Cases'));
    const changed = await stored.read(data.dir, 'probe_unbilled_cases');
    expect(changed.kind === 'present' && changed.content.ok && changed.content.name).to.deep.include({ en: 'Cases not yet billed' });
    expect(stored.parser.parses).to.equal(2);
  });

  it('does not follow a symbolic link, to a file or to a folder outside the definitions folder', async () => {
    const target = path.join(outside.dir, 'probe_outside.yaml');
    fs.writeFileSync(target, signalYaml('probe_outside'));
    fs.symlinkSync(target, path.join(signals(), 'probe_outside.yaml'));
    expect(await stored.readContent(path.join(signals(), 'probe_outside.yaml'))).to.deep.equal({
      ok: false,
      error: 'the file is a symbolic link, which the server does not follow',
    });
    fs.symlinkSync(outside.dir, path.join(data.dir, 'theses'));
    fs.writeFileSync(path.join(outside.dir, 'hyp_outside.yaml'), 'probe_id: hyp_outside\nname: {en: Outside}\n');
    expect(await stored.read(data.dir, 'hyp_outside')).to.deep.equal({ kind: 'absent' });
    expect(stored.parser.parses).to.equal(0);
  });

  it('gives the explanation and narrative lookups a file\'s name, and nothing for a link or a costly file', async () => {
    fs.writeFileSync(path.join(signals(), 'probe_unbilled_cases.yaml'), EXAMPLE_SIGNAL);
    const target = path.join(outside.dir, 'probe_linked.yaml');
    fs.writeFileSync(target, signalYaml('probe_linked'));
    fs.symlinkSync(target, path.join(signals(), 'probe_linked.yaml'));
    fs.writeFileSync(path.join(signals(), 'probe_nested.yaml'), nestedLists(700));
    const summaries: Record<string, { summary: string | null; narrative: string | null }> = {};
    for (const id of ['probe_unbilled_cases', 'probe_linked', 'probe_nested', 'probe_missing']) {
      const definitions = new AfsDefinitions(data.dir, stored);
      const summary = await readAfsSignal(definitions, id);
      const narrative = await readSignalFromAfs(definitions, id);
      summaries[id] = { summary: summary?.name.en ?? null, narrative: narrative?.name.en ?? null };
    }
    expect(summaries).to.deep.equal({
      probe_unbilled_cases: { summary: 'Discharged cases not yet billed', narrative: 'Discharged cases not yet billed' },
      probe_linked: { summary: null, narrative: null },
      probe_nested: { summary: null, narrative: null },
      probe_missing: { summary: null, narrative: null },
    });
  });
});
