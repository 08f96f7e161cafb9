/** The CORS headers the DDL handler and the local gateway send (shared/api/cors.ts). */
import { describe, expect, it } from 'vitest';
import { corsHeaders, preflightHeaders } from '../../shared/api/cors';

const LIST = ['https://console.example.com', 'http://localhost:5173'];

describe('corsHeaders', () => {
  it('names an allowed origin, exposes idempotent-replayed and varies on Origin', () => {
    expect(corsHeaders(LIST, 'http://localhost:5173')).toEqual({
      'access-control-allow-origin': 'http://localhost:5173',
      'access-control-expose-headers': 'idempotent-replayed',
      vary: 'Origin',
    });
  });

  it('names no other origin (exact match only), but still varies on Origin', () => {
    for (const origin of ['https://evil.example.net', 'https://console.example.com.evil.net', 'https://CONSOLE.example.com', 'null', undefined]) {
      expect(corsHeaders(LIST, origin)).toEqual({ vary: 'Origin' });
    }
  });

  it('answers "*" to everyone, with no Vary', () => {
    expect(corsHeaders(['*'], 'https://anything.example')).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'idempotent-replayed' });
    expect(corsHeaders(['*'], undefined)).toEqual({ 'access-control-allow-origin': '*', 'access-control-expose-headers': 'idempotent-replayed' });
  });

  it('sends nothing when no origin is configured', () => {
    expect(corsHeaders(undefined, 'https://console.example.com')).toEqual({});
    expect(corsHeaders([], 'https://console.example.com')).toEqual({});
  });
});

describe('preflightHeaders', () => {
  it('answers the two API routes with their methods, the request headers and a max age', () => {
    expect(preflightHeaders(LIST, 'https://console.example.com', '/api/sql')).toEqual({
      'access-control-allow-origin': 'https://console.example.com',
      vary: 'Origin',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization,content-type,idempotency-key',
      'access-control-max-age': '600',
    });
    expect(preflightHeaders(['*'], undefined, '/api/health')).toMatchObject({ 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET' });
  });

  it('has no preflight for other paths, or without configured origins', () => {
    expect(preflightHeaders(LIST, 'https://console.example.com', '/api/other')).toBeUndefined();
    expect(preflightHeaders(LIST, 'https://console.example.com', '/constructor')).toBeUndefined();
    expect(preflightHeaders(undefined, 'https://console.example.com', '/api/sql')).toBeUndefined();
  });

  it('names no origin to another page (the browser then refuses)', () => {
    expect(preflightHeaders(LIST, 'https://evil.example.net', '/api/sql')).not.toHaveProperty('access-control-allow-origin');
  });
});
