import { expect } from 'chai';
import fs from 'node:fs';
import YAML from 'yaml';
import { effectiveRoles } from '../../src/auth/caller.js';
import { listClaim } from '../../src/auth/oidc.js';
import { accessRules, bearerToken } from '../../src/http/access.js';
import { Problem } from '../../src/common/problems.js';
import { EVERY_TENANT, tenantScopeOf } from '../../src/tenants/tenants.js';
import { ScopedTenants, resolveTenant, type TenantEntry, type Tenants } from '../../src/tenants/tenants.js';
import { contractOperations } from '../helpers/contract.js';

const document = YAML.parse(fs.readFileSync('openapi.yaml', 'utf8'));

describe('access rules of the contract', () => {
  it('reads a role for every operation that needs a token, and none for the public ones', () => {
    const rules = accessRules(document);
    expect(rules.size).to.equal(contractOperations().length);
    expect(rules.get('getHealth')!.role).to.equal(null);
    expect(rules.get('listViews')!.role).to.equal('viewer');
    expect(rules.get('createView')!.role).to.equal('editor');
    expect(rules.get('refreshStore')!.role).to.equal('admin');
  });

  it('reads the limit each costly operation counts against from x-cost', () => {
    const rules = accessRules(document);
    const limited = Object.fromEntries([...rules.values()].filter((rule) => rule.cost !== null).map((rule) => [rule.operationId, rule.cost]));
    expect(limited).to.deep.equal({ createNarrative: 'narrative', exportDimension: 'export', validateSignalDefinition: 'signal-tool', compileSignalDefinition: 'signal-tool' });
    const broken = structuredClone(document);
    broken.paths['/api/views'].get['x-cost'] = 'gold';
    delete broken.paths['/api/explain-narrative'].post.responses['429'];
    expect(() => accessRules(broken)).to.throw(/createNarrative names x-cost but declares no 429; listViews has x-cost "gold"; it is one of narrative, export, signal-tool/);
  });

  it('refuses a contract whose protected operation names no role', () => {
    const broken = structuredClone(document);
    delete broken.paths['/api/views'].get['x-required-role'];
    broken.paths['/health'].get['x-required-role'] = 'viewer';
    expect(() => accessRules(broken)).to.throw(/getHealth is public \(security: \[\]\) but names x-required-role; listViews needs a token but its x-required-role is undefined/);
  });

  it('declares 401 and 403 wherever a token is needed, 429 exactly where a limit applies (a tenant fetch wherever a tenant file is read, the open event streams), and names the role in the description', () => {
    for (const op of contractOperations()) {
      const raw = document.paths[op.path][op.method.toLowerCase()];
      if (op.role === null) {
        expect(op.statuses, op.operationId).not.to.include.members(['401']);
        expect(op.statuses, op.operationId).not.to.include.members(['403']);
        continue;
      }
      expect(op.statuses, op.operationId).to.include.members(['401', '403']);
      expect(raw.description, op.operationId).to.match(new RegExp(`\\*\\*Role\\*\\* \\(with sign-in\\): \`${op.role}\``));
      const readsTenantFile = raw.responses['503']?.$ref === '#/components/responses/TenantUnavailable';
      // an event stream's 429 is its bound on open streams (TooManyStreams)
      const boundsStreams = raw.responses['429']?.$ref === '#/components/responses/TooManyStreams';
      expect(op.statuses.includes('429'), op.operationId).to.equal(op.cost !== null || readsTenantFile || boundsStreams);
    }
    expect(document.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  });
});

describe('bearer tokens and claims', () => {
  it('tells no token, a malformed one and a token apart (RFC 6750 b64token)', () => {
    expect(bearerToken('')).to.deep.equal({ kind: 'none' });
    expect(bearerToken('Basic YWJj')).to.deep.equal({ kind: 'none' });
    expect(bearerToken('Bearer')).to.deep.equal({ kind: 'malformed' });
    expect(bearerToken('Bearer a.b c')).to.deep.equal({ kind: 'malformed' });
    expect(bearerToken('Bearer a"b')).to.deep.equal({ kind: 'malformed' });
    expect(bearerToken('bearer  eyJ.eyJ.sig-_~+/==')).to.deep.equal({ kind: 'token', token: 'eyJ.eyJ.sig-_~+/==' });
  });

  it('reads list claims by name first, then as a dotted path, from an array or one string', () => {
    const payload = { roles: 'editor', 'https://desk.example/tenants': ['ost.*'], realm_access: { roles: ['viewer', 'offline_access'] } };
    expect(listClaim(payload, 'roles')).to.deep.equal(['editor']);
    expect(listClaim(payload, 'https://desk.example/tenants')).to.deep.equal(['ost.*']);
    expect(listClaim(payload, 'realm_access.roles')).to.deep.equal(['viewer', 'offline_access']);
    expect(listClaim(payload, 'groups')).to.deep.equal([]);
    expect(listClaim({ roles: { admin: true } }, 'roles')).to.deep.equal([]);
  });

  it('expands roles: editor includes viewer, admin includes both, others grant nothing', () => {
    expect(effectiveRoles(['admin'])).to.deep.equal(['viewer', 'editor', 'admin']);
    expect(effectiveRoles(['offline_access', 'editor'])).to.deep.equal(['viewer', 'editor']);
    expect(effectiveRoles(['Admin', 7, null])).to.deep.equal([]);
  });
});

describe('tenant scope', () => {
  const entry = (compositeId: string): TenantEntry => {
    const [pack, slug] = compositeId.split('.') as [string, string];
    return { compositeId, pack, slug } as TenantEntry;
  };
  const all = ['ost.kantonsspital', 'ost.rehaklinik', 'west.hopital-cantonal', 'west.rehaklinik'].map(entry);
  const lookup = { list: () => all, get: (id: string) => all.find((e) => e.compositeId === id) };
  const registry = { ...lookup, source: 'local', scope: EVERY_TENANT, resolve: (value: string) => resolveTenant(lookup, value) } as unknown as Tenants;

  it('grants *, whole packs and composite IDs, and ignores other entries', () => {
    const { scope, ignored } = tenantScopeOf(['west.*', 'ost.kantonsspital', 'kantonsspital', 'ost.*.x', '*.west', 42, 'OST.x']);
    expect(scope.entries).to.deep.equal(['ost.kantonsspital', 'west.*']);
    expect(ignored).to.deep.equal(['kantonsspital', 'ost.*.x', '*.west', '42', 'OST.x']);
    expect(scope.includes('west', 'anything')).to.equal(true);
    expect(scope.includes('ost', 'rehaklinik')).to.equal(false);
    expect(scope.coversPack('west')).to.equal(true);
    expect(scope.coversPack('ost')).to.equal(false);
    expect(tenantScopeOf(['ost.kantonsspital', '*']).scope).to.equal(EVERY_TENANT);
  });

  it('resolves among the tenants in scope only; outside it a tenant is as unknown as one that does not exist', () => {
    const scoped = new ScopedTenants(registry, tenantScopeOf(['west.*', 'ost.kantonsspital']).scope);
    expect(scoped.list().map((e) => e.compositeId)).to.deep.equal(['ost.kantonsspital', 'west.hopital-cantonal', 'west.rehaklinik']);
    // ambiguous among all tenants, not among the caller's
    expect(() => registry.resolve('rehaklinik')).to.throw(Problem, /several packs/);
    expect(scoped.resolve('rehaklinik').compositeId).to.equal('west.rehaklinik');
    const refusal = (tenants: Tenants, value: string) => {
      try {
        tenants.resolve(value);
      } catch (err) {
        return err as Problem;
      }
      throw new Error('resolved');
    };
    const hidden = refusal(scoped, 'ost.rehaklinik');
    const missing = refusal(scoped, 'ost.nowhere');
    expect([hidden.status, hidden.code]).to.deep.equal([missing.status, missing.code]);
    expect(hidden.detail.replace('ost.rehaklinik', 'ost.nowhere')).to.equal(missing.detail);
    expect(scoped.outsideScope).to.equal(null);
    refusal(scoped, 'ost.rehaklinik');
    expect(scoped.outsideScope).to.equal('ost.rehaklinik');
    expect(scoped.get('ost.rehaklinik')).to.equal(undefined);
    expect(scoped.resolved).to.deep.equal(['west.rehaklinik']);
  });
});
