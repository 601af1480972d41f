import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { KeyObject, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** The key algorithms test certificates can carry. */
export type TestKeyType = 'rsa' | 'ecdsa' | 'ed25519';

/** A certificate built for a test, with its private key, as a TLS server takes them. */
export interface TestCertificate {
  /** The certificate, PEM. */
  pem: string;
  /** The certificate, DER. */
  der: Buffer;
  /** Its private key, PKCS #8 PEM. */
  keyPem: string;
  /** The private key, to sign certificates this one issues. */
  privateKey: CryptoKey;
  /** The public key. */
  publicKey: CryptoKey;
  /** The key algorithm. */
  keyType: TestKeyType;
}

/** What a test certificate says; every field has a default. */
export interface TestCertificateOptions {
  /** Distinguished name, RFC 4514 text (`CN=a, O=b`). @default 'CN=<first DNS name>' */
  subject?: string;
  /** DNS names of the subject-alternative-name extension. @default [] */
  dnsNames?: string[];
  /** IP addresses of the subject-alternative-name extension. @default [] */
  ipAddresses?: string[];
  /** Start of validity. @default one day ago */
  notBefore?: Date;
  /** End of validity. @default 90 days from now */
  notAfter?: Date;
  /** Hexadecimal serial number. @default random */
  serialNumber?: string;
  /** Key algorithm. @default 'rsa' */
  keyType?: TestKeyType;
  /** Whether it may issue certificates. @default false */
  ca?: boolean;
}

/** A root, an intermediate it signed, and a way to issue leaves from the intermediate. */
export interface TestPki {
  root: TestCertificate;
  intermediate: TestCertificate;
  /** Issues a leaf certificate signed by the intermediate. */
  issue(options: TestCertificateOptions): Promise<TestCertificate>;
}

const DAY_MS = 86_400_000;

const KEY_ALGORITHMS: Record<TestKeyType, RsaHashedKeyGenParams | EcKeyGenParams | Algorithm> = {
  rsa: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 },
  ecdsa: { name: 'ECDSA', namedCurve: 'P-256' },
  ed25519: { name: 'Ed25519' },
};

const SIGNING_ALGORITHMS: Record<TestKeyType, Algorithm | EcdsaParams> = {
  rsa: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as Algorithm,
  ecdsa: { name: 'ECDSA', hash: 'SHA-256' },
  ed25519: { name: 'Ed25519' },
};

/** A days offset from now, as a `Date`. */
export function daysFromNow(days: number): Date {
  return new Date(Date.now() + days * DAY_MS);
}

/** The validity of a {@link createTestPki}'s root and intermediate; each defaults as a certificate does. */
export interface TestPkiOptions {
  root?: Pick<TestCertificateOptions, 'notBefore' | 'notAfter'>;
  intermediate?: Pick<TestCertificateOptions, 'notBefore' | 'notAfter'>;
}

/**
 * Builds a private PKI: a self-signed RSA root ("Dossier Test Root"), an RSA intermediate it signed
 * ("Dossier Test Intermediate"), and {@link TestPki.issue} for leaves signed by the intermediate.
 */
export async function createTestPki(options: TestPkiOptions = {}): Promise<TestPki> {
  const root = await createSelfSigned({ subject: 'CN=Dossier Test Root, O=Dossier Test, C=DE', ca: true, ...options.root });
  const intermediate = await createCertificate(
    { subject: 'CN=Dossier Test Intermediate, O=Dossier Test, C=DE', ca: true, ...options.intermediate },
    root,
    'CN=Dossier Test Root, O=Dossier Test, C=DE',
  );
  return {
    root,
    intermediate,
    issue: (options) => createCertificate(options, intermediate, 'CN=Dossier Test Intermediate, O=Dossier Test, C=DE'),
  };
}

/** Builds a self-signed certificate (a root when `ca` is true, else a self-signed leaf). */
export async function createSelfSigned(options: TestCertificateOptions): Promise<TestCertificate> {
  const keyType = options.keyType ?? 'rsa';
  const keys = await generateKeys(keyType);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    ...baseParams(options, keyType),
    name: subjectOf(options),
    keys,
    extensions: await extensions(options, keys.publicKey, keys.publicKey),
  });
  return finish(certificate, keys, keyType);
}

async function createCertificate(
  options: TestCertificateOptions,
  issuer: TestCertificate,
  issuerName: string,
): Promise<TestCertificate> {
  const keyType = options.keyType ?? 'rsa';
  const keys = await generateKeys(keyType);
  const certificate = await x509.X509CertificateGenerator.create({
    ...baseParams(options, issuer.keyType),
    subject: subjectOf(options),
    issuer: issuerName,
    publicKey: keys.publicKey,
    signingKey: issuer.privateKey,
    extensions: await extensions(options, keys.publicKey, issuer.publicKey),
  });
  return finish(certificate, keys, keyType);
}

function baseParams(options: TestCertificateOptions, signerType: TestKeyType): x509.X509CertificateCreateParamsBase {
  return {
    serialNumber:
      options.serialNumber ??
      webcrypto
        .getRandomValues(Buffer.alloc(8))
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
    notBefore: options.notBefore ?? daysFromNow(-1),
    notAfter: options.notAfter ?? daysFromNow(90),
    signingAlgorithm: SIGNING_ALGORITHMS[signerType],
  };
}

function subjectOf(options: TestCertificateOptions): string {
  return options.subject ?? `CN=${options.dnsNames?.[0] ?? 'Dossier Test'}`;
}

async function extensions(
  options: TestCertificateOptions,
  publicKey: CryptoKey,
  issuerKey: CryptoKey,
): Promise<x509.Extension[]> {
  const list: x509.Extension[] = [
    new x509.BasicConstraintsExtension(options.ca === true, undefined, true),
    new x509.KeyUsagesExtension(
      options.ca
        ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature
        : x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(publicKey),
    await x509.AuthorityKeyIdentifierExtension.create(issuerKey),
  ];
  const names: x509.JsonGeneralName[] = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length > 0) list.push(new x509.SubjectAlternativeNameExtension(names));
  if (!options.ca) list.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]));
  return list;
}

async function generateKeys(keyType: TestKeyType): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(KEY_ALGORITHMS[keyType], true, ['sign', 'verify'])) as CryptoKeyPair;
}

function finish(certificate: x509.X509Certificate, keys: CryptoKeyPair, keyType: TestKeyType): TestCertificate {
  return {
    pem: certificate.toString('pem'),
    der: Buffer.from(certificate.rawData),
    keyPem: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
    privateKey: keys.privateKey,
    publicKey: keys.publicKey,
    keyType,
  };
}
