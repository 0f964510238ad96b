import { expect } from 'chai';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { demoTemplateDir, tempDir } from '../helpers/server.js';

describe('graceful shutdown (src/main.ts)', function () {
  this.timeout(60_000);

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const data = tempDir('ads-shutdown-');
    fs.cpSync(demoTemplateDir(), data.dir, { recursive: true });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: '0', DATA_DIR: data.dir, KLS_DIR: path.join(data.dir, 'kls'), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: any[] = [];
    const listening = new Promise<number>((resolve, reject) => {
      let buffer = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          lines.push(line);
          if (line.msg === 'listening') resolve(line.port);
        }
      });
      child.once('exit', () => reject(new Error('server exited before listening')));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const port = await listening;
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/api/refresh', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write('{"scope":');
        // The request is in flight (body half sent) when SIGTERM arrives; the rest follows afterwards.
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => req.end('"all"}'), 300);
        }, 200);
      });
      const answer = await response;
      expect(answer.status).to.equal(200);
      expect(JSON.parse(answer.body).status).to.equal('skipped');
      expect(await exited).to.equal(0);
      expect(lines.map((l) => l.msg)).to.include.members(['shutting down: finishing in-flight requests', 'stopped']);
    } finally {
      child.kill('SIGKILL');
      data.remove();
    }
  });

  it('refuses to start with one line naming the bad variable', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: 'http', STORE_CONCURRENCY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).to.equal(2);
    expect(stderr.trim().split('\n')).to.have.length(1);
    expect(stderr).to.include('PORT').and.include('STORE_CONCURRENCY');
  });
});
