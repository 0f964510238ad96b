import { expect } from 'chai';
import { isCredentialName, maskedText, maskedUrl, readableUrl, urlSecrets } from '../../src/common/secrets.js';

describe('masking secrets', () => {
  describe('maskedUrl', () => {
    it('masks the password of the user info and keeps the user, host, port, path and other parameters', () => {
      expect(maskedUrl('postgres://desk:S3cret@db.example:5432/desk?sslmode=verify-full')).to.equal('postgres://desk:***@db.example:5432/desk?sslmode=verify-full');
      expect(maskedUrl('postgresql://desk:p%2Fw%40rd@db.example/desk')).to.equal('postgresql://desk:***@db.example/desk');
      // with nothing to mask, as written (the parser would add a `/` and drop a default port)
      expect(maskedUrl('https://minio.example:9000')).to.equal('https://minio.example:9000');
      expect(maskedUrl('HTTPS://Minio.Example:443')).to.equal('HTTPS://Minio.Example:443');
      expect(maskedUrl('HTTPS://u:S3cret@Minio.Example:443/x?token=t&page=2')).to.equal('https://u:***@minio.example/x?token=***&page=2');
      expect(maskedUrl('postgres://desk@db.example/desk')).to.equal('postgres://desk@db.example/desk');
    });

    it('masks the values of credential-like query parameters, in any case and spelling', () => {
      expect(maskedUrl('postgres://u@host:5432/desk?password=S3cret&sslmode=require')).to.equal('postgres://u@host:5432/desk?password=***&sslmode=require');
      const names = ['password', 'PASSWORD', 'passwd', 'pwd', 'pass', 'sslpassword', 'passphrase', 'secret', 'client_secret', 'token', 'access_token', 'key', 'api_key', 'apiKey', 'access_key', 'AccessKey', 'secret-key', 'sslkey', 'X-Amz-Signature', 'X-Amz-Credential', 'X-Amz-Security-Token', 'sig', 'auth', 'authorization', 'jwt'];
      for (const name of names) {
        expect(maskedUrl(`https://h.example/p?${name}=S3cret&page=2`), name).to.equal(`https://h.example/p?${name}=***&page=2`);
        expect(isCredentialName(name), name).to.equal(true);
      }
      for (const name of ['sslmode', 'user', 'host', 'page', 'application_name', 'sslrootcert', 'uselibpqcompat', 'options']) expect(isCredentialName(name), name).to.equal(false);
      // a name written percent-encoded is judged decoded; the rest of the query is left as written
      expect(maskedUrl('https://h.example/?pass%77ord=x&q=a%20b+c')).to.equal('https://h.example/?pass%77ord=***&q=a%20b+c');
    });

    it('masks the user info password and the parameters together', () => {
      expect(maskedUrl('postgres://u:one@h/db?sslpassword=two&token=three')).to.equal('postgres://u:***@h/db?sslpassword=***&token=***');
    });

    it('masks a text that is not a URL whole, keeping only its scheme', () => {
      // port out of range: not a URL
      expect(maskedUrl('postgres://u@h:99999/x?password=S3cret')).to.equal('postgres:***');
      // an unencoded `/`, `?` or `#` in the password
      expect(maskedUrl('postgres://desk:ab/cd@db.example/desk')).to.equal('postgres:***');
      expect(maskedUrl('postgres://desk:ab?cd@db.example/desk')).to.equal('postgres:***');
      expect(maskedUrl('postgres://desk:ab#cd@db.example/desk')).to.equal('postgres:***');
      expect(maskedUrl('not a url, S3cret')).to.equal('***');
      expect(maskedUrl('')).to.equal('***');
    });

    it('masks whole a URL with an @ outside its user info, where part of a password would pass for a path or a query', () => {
      // parses, but as host "desk", port 123 and path "/cd@db.example/desk"
      expect(readableUrl('postgres://desk:123/cd@db.example/desk')).to.equal(null);
      expect(maskedUrl('postgres://desk:123/cd@db.example/desk')).to.equal('postgres:***');
      expect(maskedUrl('postgres://desk:123?cd@db.example/desk')).to.equal('postgres:***');
      expect(maskedUrl('postgres://desk:123#cd@db.example/desk')).to.equal('postgres:***');
      expect(readableUrl('postgres://desk:S3cret@db.example/desk')?.hostname).to.equal('db.example');
    });
  });

  describe('urlSecrets', () => {
    it('lists the password and credential values as written, encoded and decoded', () => {
      expect(urlSecrets('postgres://u:p%2Fw@h/db?password=S3+cret&sslmode=require')).to.have.members(['p%2Fw', 'p%252Fw', 'p/w', 'S3 cret', 'S3%20cret']);
      expect(urlSecrets('postgres://u@h/db')).to.deep.equal([]);
      expect(urlSecrets('not a url')).to.deep.equal([]);
    });
  });

  describe('maskedText', () => {
    it('masks every URL in a text and every secret it is given, the longest first', () => {
      const text = 'connect to postgres://u:S3cret@h:5432/db?token=abc failed; then "https://x.example/?X-Amz-Signature=f00" and postgres://u@h:99999/x?password=S3cret';
      expect(maskedText(text)).to.equal('connect to postgres://u:***@h:5432/db?token=*** failed; then "https://x.example/?X-Amz-Signature=***" and postgres:***');
      expect(maskedText('password authentication failed: S3cret and S3cretive', ['S3cret', 'S3cretive'])).to.equal('password authentication failed: *** and ***');
      expect(maskedText('nothing secret here')).to.equal('nothing secret here');
    });

    it('takes time linear in the text: a long word before a URL (a client may choose what a line carries)', () => {
      const word = 'a'.repeat(200_000);
      const started = performance.now();
      expect(maskedText(`${word} postgres://u:S3cret@h/db ${word}x://`)).to.equal(`${word} postgres://u:***@h/db ${word}x://`);
      // quadratic, this took minutes; linear, a few milliseconds
      expect(performance.now() - started).to.be.below(1000);
    });
  });
});
