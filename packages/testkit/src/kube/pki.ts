import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate and its private key on disk (PEM). */
export interface CertFiles {
  certPath: string;
  keyPath: string;
}

/** The subject of a client or serving certificate: Kubernetes reads CN as the user name and each O as a group. */
export interface Subject {
  commonName: string;
  organizations?: string[];
}

const CA_EXTENSIONS = [
  'basicConstraints=critical,CA:TRUE',
  'keyUsage=critical,keyCertSign,cRLSign,digitalSignature',
  'subjectKeyIdentifier=hash',
];

/** Characters openssl's -subj syntax gives a meaning to; names with them are refused rather than escaped. */
const SUBJECT_UNSAFE = /[/\\,=+\n\r]/;

export function validateSubject(subject: Subject, field: string): void {
  if (!subject.commonName) throw new Error(`${field}.name: must not be empty`);
  if (SUBJECT_UNSAFE.test(subject.commonName))
    throw new Error(`${field}.name: ${JSON.stringify(subject.commonName)} has one of / \\ , = + or a line break`);
  for (const [i, org] of (subject.organizations ?? []).entries()) {
    if (!org) throw new Error(`${field}.groups[${i}]: must not be empty`);
    if (SUBJECT_UNSAFE.test(org))
      throw new Error(`${field}.groups[${i}]: ${JSON.stringify(org)} has one of / \\ , = + or a line break`);
  }
}

function subjectArg(s: Subject): string {
  return `${(s.organizations ?? []).map((o) => `/O=${o}`).join('')}/CN=${s.commonName}`;
}

async function writeConfig(path: string, extensions: string[]): Promise<void> {
  await writeFile(path, ['[req]', 'distinguished_name=dn', 'prompt=no', '[dn]', '[ext]', ...extensions, ''].join('\n'));
}

/**
 * Certificates made with the openssl command line (node has no API to issue X.509 certificates). P-256 keys: they
 * take milliseconds to generate, where RSA keys would add seconds to every cluster start.
 */
export class Pki {
  constructor(private readonly dir: string) {}

  /** A self-signed certificate authority `name`.crt / `name`.key. */
  async createCa(name: string, commonName: string): Promise<CertFiles> {
    const files = this.files(name);
    const config = join(this.dir, `${name}.cnf`);
    await writeConfig(config, CA_EXTENSIONS);
    await this.newCertificate(files, { commonName }, config);
    return files;
  }

  /**
   * A leaf certificate signed by `ca`: for clients (`usage: 'client'`), servers (with `altNames`: IP addresses and
   * DNS names) or both.
   */
  async issue(
    name: string,
    ca: CertFiles,
    subject: Subject,
    opts: { usage: 'client' | 'server' | 'both'; altNames?: string[] },
  ): Promise<CertFiles> {
    const files = this.files(name);
    const config = join(this.dir, `${name}.cnf`);
    const usages = { client: 'clientAuth', server: 'serverAuth', both: 'serverAuth,clientAuth' }[opts.usage];
    const altNames = (opts.altNames ?? []).map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`));
    await writeConfig(config, [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      `extendedKeyUsage=${usages}`,
      'authorityKeyIdentifier=keyid',
      ...(altNames.length ? [`subjectAltName=${altNames.join(',')}`] : []),
    ]);
    await this.newCertificate(files, subject, config, ca);
    return files;
  }

  /** A bare key pair (the service-account token signing key): `name`.key and its public half `name`.pub. */
  async createKeyPair(name: string): Promise<{ keyPath: string; publicKeyPath: string }> {
    const keyPath = join(this.dir, `${name}.key`);
    const publicKeyPath = join(this.dir, `${name}.pub`);
    await run('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', keyPath]);
    await run('openssl', ['pkey', '-in', keyPath, '-pubout', '-out', publicKeyPath]);
    return { keyPath, publicKeyPath };
  }

  private files(name: string): CertFiles {
    return { certPath: join(this.dir, `${name}.crt`), keyPath: join(this.dir, `${name}.key`) };
  }

  /** A new key and a certificate for it in one openssl call: self-signed, or signed by `ca`. */
  private async newCertificate(files: CertFiles, subject: Subject, config: string, ca?: CertFiles): Promise<void> {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      files.keyPath,
      '-out',
      files.certPath,
      '-subj',
      subjectArg(subject),
      '-days',
      '3650',
      '-set_serial',
      `0x${randomBytes(12).toString('hex')}`,
      '-config',
      config,
      '-extensions',
      'ext',
      ...(ca ? ['-CA', ca.certPath, '-CAkey', ca.keyPath] : []),
    ]);
  }
}
