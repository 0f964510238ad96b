/** How a demo tenant's logo is provided. */
export type LogoSource = 'db-png' | 'db-svg' | 'file-svg' | 'none';

/** Which `build_info` rows a demo tenant has. */
export type BuildInfoRows = 'snapshot-and-remote' | 'snapshot-only' | 'none';

/** One demo tenant (the four are listed in docs/testing.md, "Demo data"). */
export interface DemoTenant {
  compositeId: string;
  pack: string;
  slug: string;
  displayName: string;
  logo: LogoSource;
  buildInfo: BuildInfoRows;
  hasSis: boolean;
  /** Brand colour as [r, g, b]. */
  colour: readonly [number, number, number];
}

/** Build time stamped into every demo tenant (never the wall clock). */
export const DEMO_BUILT_AT = '2026-11-01T06:00:00Z';

const FIXED_TENANTS: readonly Omit<DemoTenant, 'compositeId'>[] = [
  {
    pack: 'ost', slug: 'kantonsspital', displayName: 'Kantonsspital Ost',
    logo: 'db-png', buildInfo: 'snapshot-and-remote', hasSis: true, colour: [200, 16, 46],
  },
  {
    pack: 'ost', slug: 'rehaklinik', displayName: 'Rehaklinik Ost',
    logo: 'db-svg', buildInfo: 'snapshot-only', hasSis: false, colour: [0, 122, 94],
  },
  {
    pack: 'west', slug: 'hopital-cantonal', displayName: 'Hôpital cantonal Ouest',
    logo: 'file-svg', buildInfo: 'none', hasSis: false, colour: [0, 84, 166],
  },
  {
    pack: 'west', slug: 'rehaklinik', displayName: 'Clinique de réadaptation Ouest',
    logo: 'none', buildInfo: 'snapshot-and-remote', hasSis: true, colour: [120, 72, 160],
  },
];

/** The first `count` demo tenants: the four fixture tenants, then `ost.spital-05`, `west.spital-06`, ... */
export function demoTenants(count: number): DemoTenant[] {
  const tenants: DemoTenant[] = [];
  for (let index = 0; index < count; index++) {
    const fixed = FIXED_TENANTS[index];
    if (fixed) {
      tenants.push({ ...fixed, compositeId: `${fixed.pack}.${fixed.slug}` });
      continue;
    }
    const number = String(index + 1).padStart(2, '0');
    const pack = index % 2 === 0 ? 'ost' : 'west';
    const slug = `spital-${number}`;
    tenants.push({
      compositeId: `${pack}.${slug}`, pack, slug,
      displayName: pack === 'ost' ? `Regionalspital ${number}` : `Hôpital régional ${number}`,
      logo: 'none', buildInfo: 'snapshot-and-remote', hasSis: false,
      colour: [40 + ((index * 37) % 160), 90, 140],
    });
  }
  return tenants;
}
