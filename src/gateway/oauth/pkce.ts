import { createHash, randomBytes } from 'node:crypto';

export interface PkcePair {
  verifier: string;
  challenge: string;
}

/** S256 (RFC 7636 4.2): base64url(SHA-256(ASCII(verifier))), without padding. */
export function challengeFor(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** 64 random bytes as base64url (86 characters, inside RFC 7636's 43..128). */
export function createPkce(): PkcePair {
  const verifier = randomBytes(64).toString('base64url');
  return { verifier, challenge: challengeFor(verifier) };
}

/** The `state` that ties the callback to this login (CSRF protection for the loopback port). */
export function createState(): string {
  return randomBytes(32).toString('base64url');
}
