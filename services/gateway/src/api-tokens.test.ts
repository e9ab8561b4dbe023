import { describe, expect, it } from 'vitest';
import { allows, ApiTokens, isLoopback, TokenFileError } from './api-tokens.js';

const ADMIN = 'a'.repeat(32);
const READER = 'r'.repeat(32);
const FILE = `# who may call the gateway\n${ADMIN},admin,ci-deployer\n\n  ${READER} , read , dashboard\n`;

describe('ApiTokens', () => {
  const tokens = ApiTokens.parse(FILE);

  it.each([
    [`Bearer ${ADMIN}`, { name: 'ci-deployer', role: 'admin' }],
    [`bearer ${READER}`, { name: 'dashboard', role: 'read' }],
    [`Bearer ${'x'.repeat(32)}`, undefined],
    [ADMIN, undefined],
    [`Basic ${ADMIN}`, undefined],
    ['Bearer ', undefined],
    [undefined, undefined],
  ])('the header %j names %j', (header, caller) => {
    expect(tokens.caller(header)).toEqual(caller);
  });

  it.each([
    [`${ADMIN},admin`, 1, /expected 3 fields/],
    [`${ADMIN},admin,a,b`, 1, /expected 3 fields/],
    [`# c\n${ADMIN},root,ops`, 2, /unknown role "root"/],
    ['short,admin,ops', 1, /shorter than 16/],
    [`${ADMIN},admin,one\n${ADMIN},read,two`, 2, /listed twice/],
    ['# nothing\n', 0, /no token listed/],
  ])('refuses %j at line %d', (text, line, message) => {
    const err = (() => {
      try {
        ApiTokens.parse(text, 'tokens.csv');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(TokenFileError);
    expect(err).toMatchObject({ source: 'tokens.csv', line });
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(`tokens.csv:${line}:`);
  });
});

describe('roles', () => {
  it.each([
    ['read', 'get', true],
    ['read', 'list', true],
    ['read', 'events', true],
    ['read', 'apply', false],
    ['read', 'delete', false],
    ['read', 'unknown', false],
    ['admin', 'apply', true],
    ['admin', 'delete', true],
  ] as const)('%s may %s: %s', (role, op, expected) => {
    expect(allows(role, op)).toBe(expected);
  });
});

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['localhost', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['', false],
  ])('%j: %s', (host, expected) => expect(isLoopback(host)).toBe(expected));
});
