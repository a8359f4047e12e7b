/**
 * A throwaway certificate authority for TLS tests: a CA, a server certificate for 127.0.0.1
 * and localhost signed by it, and an EC P-256 signing key pair (PKCS#8 PEM, public JWKS), all
 * generated in a fresh temp directory with the `openssl` CLI (node:crypto makes keys but no
 * X.509 certificates).
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface TestPki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
}

export function makeTestPki(): TestPki {
  const dir = tempDir('rtcap-pki-');
  const p = (f: string) => join(dir, f);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 20_000,
    });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    p('ca-key.pem'),
    '-out',
    p('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=rtcap test CA',
  );
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    p('server-key.pem'),
    '-out',
    p('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  writeFileSync(
    p('ext.cnf'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    p('server.csr'),
    '-CA',
    p('ca.pem'),
    '-CAkey',
    p('ca-key.pem'),
    '-CAcreateserial',
    '-out',
    p('server.pem'),
    '-days',
    '2',
    '-extfile',
    p('ext.cnf'),
  );
  return { dir, caCert: p('ca.pem'), serverCert: p('server.pem'), serverKey: p('server-key.pem') };
}

/**
 * An EC P-256 key pair: the private key as a PKCS#8 PEM file, the public key as a JWKS file with
 * `kid`.
 */
export function makeSigningKey(
  dir: string,
  kid: string,
): { privateKeyFile: string; jwksFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateKeyFile = join(dir, `${kid}.pem`);
  writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  const jwksFile = join(dir, `${kid}.jwks.json`);
  writeFileSync(
    jwksFile,
    JSON.stringify({
      keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }],
    }),
  );
  return { privateKeyFile, jwksFile };
}
