import { describe, expect, it } from 'vitest';
import { isUtf8JsonType } from './read-json-body.js';

describe('isUtf8JsonType', () => {
  it.each([
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json; charset=utf8',
    'application/json; foo=bar',
    'application/vnd.api+json; charset=utf-8',
    'application/json; charset=us-ascii',
    // A quoted value is one value, whatever it holds.
    'application/json; foo="x;charset=latin1"',
    'application/json; foo="a\\"b;charset=latin1"; charset=utf-8',
  ])('takes %s', (type) => {
    expect(isUtf8JsonType(type)).toBe(true);
  });

  // bug: a declared charset other than UTF-8 was read as UTF-8 and answered 200
  it.each([
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset="iso-8859-1"',
    'application/json; charset=',
    'application/json; charset=utf-8; charset=latin1',
    'application/json; foo="x"; charset=latin1',
    'application/x-www-form-urlencoded',
    'text/plain; charset=utf-8',
    'application/jsonp',
  ])('refuses %s', (type) => {
    expect(isUtf8JsonType(type)).toBe(false);
  });
});
