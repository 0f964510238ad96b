import { encodePng } from './png.js';

type Colour = readonly [number, number, number];

/** A 64×64 PNG: a rounded square in the tenant colour with a white cross, transparent corners. */
export function pngLogo(colour: Colour, size = 64): Buffer {
  const pixels = new Uint8Array(size * size * 4);
  const radius = size / 6;
  const arm = size / 10;
  const reach = size / 3.2;
  const centre = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const offset = (y * size + x) * 4;
      const cornerX = Math.max(radius - x, x - (size - 1 - radius), 0);
      const cornerY = Math.max(radius - y, y - (size - 1 - radius), 0);
      if (cornerX * cornerX + cornerY * cornerY > radius * radius) continue;
      const dx = Math.abs(x - centre);
      const dy = Math.abs(y - centre);
      const inCross = (dx <= arm && dy <= reach) || (dy <= arm && dx <= reach);
      pixels.set(inCross ? [255, 255, 255, 255] : [colour[0], colour[1], colour[2], 255], offset);
    }
  }
  return encodePng(size, size, pixels);
}

/** A small SVG logo: the same cross shape plus the tenant's initials. */
export function svgLogo(displayName: string, colour: Colour): string {
  const hex = `#${colour.map((part) => part.toString(16).padStart(2, '0')).join('')}`;
  const initials = displayName.split(/\s+/).filter((word) => /^\p{Lu}/u.test(word)).map((word) => word[0]).join('').slice(0, 3);
  const title = displayName.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img">',
    `  <title>${title}</title>`,
    `  <rect width="64" height="64" rx="10" fill="${hex}"/>`,
    '  <path d="M27 12h10v15h15v10H37v15H27V37H12V27h15z" fill="#fff" opacity="0.9"/>',
    `  <text x="32" y="61" font-family="Helvetica, Arial, sans-serif" font-size="8" text-anchor="middle" fill="#fff">${initials}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
