// Module customization hooks (module.register, run on the loader thread): appends the URL of every module the
// process loads through the ESM loader to the file given at initialize. Registered by loaded-modules.mjs.
import fs from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  fs.appendFileSync(file, `${url}\n`);
  return nextLoad(url, context);
}
