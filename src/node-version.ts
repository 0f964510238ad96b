/**
 * Imported first by `main.ts`: on a Node.js older than the project's runtime, the server stops before anything
 * else is loaded (better-sqlite3's native module crashes older runtimes), with one line naming the version needed.
 */
export const REQUIRED_NODE_MAJOR = 24;

const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_NODE_MAJOR) {
  process.stderr.write(
    `analytics-desk-server needs Node.js ${REQUIRED_NODE_MAJOR} or newer, not ${process.versions.node}; ` +
      '`npm start` runs the Node.js 24 that `npm install` brings on Linux x64 and arm64; elsewhere install Node.js 24\n',
  );
  process.exit(2);
}
