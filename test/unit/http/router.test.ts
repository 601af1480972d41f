import { expect } from 'chai';
import { bearerToken } from '../../../adapters/http/auth.js';
import { mountPrefix } from '../../../adapters/http/handler.js';
import { clientFacts, type HttpRequest } from '../../../adapters/http/request.js';
import type { Route } from '../../../adapters/http/route.js';
import { Router } from '../../../adapters/http/router.js';
import { ROUTES } from '../../../adapters/http/routes.js';

const router = new Router(ROUTES);
const routeOf = (method: string, path: string) => router.route(method, path);

describe('the router of the route table', () => {
  it('matches paths as sent, case-sensitively, with or without one trailing slash, a parameter being one decoded segment, never through a dot segment', () => {
    for (const path of ['/api/dns', '/api/dns/']) expect(router.match(path)?.routes.pattern, path).to.equal('/api/dns');
    for (const path of ['/API/DNS', '/Api/dns', '//api/dns', '/api/dns//', '/api/%64ns', '/api/dns/x'])
      expect(router.match(path), path).to.equal(undefined);
    for (const path of ['/api/./dns', '/x/../api/dns', '/api/%2e%2e/api/dns', '/api/%2E/dns'])
      expect(router.match(path), path).to.equal(undefined);
    expect(router.match('/api/v1/documents/%31/')).to.deep.include({ params: { id: '1' } });
    expect(router.match('/api/v1/documents/%E0')?.params).to.deep.equal({ id: '%E0' });
  });

  it('answers HEAD with GET, 405 with the methods of the path in table order, 501 for a method it does not know', () => {
    const head = routeOf('HEAD', '/healthz');
    expect(head.kind === 'route' && head.route.method).to.equal('get');
    expect(routeOf('DELETE', '/api/v1/documents')).to.deep.equal({ kind: 'not-allowed', allow: 'HEAD, GET, POST' });
    expect(routeOf('POST', '/api/watches/wat_1')).to.deep.equal({ kind: 'not-allowed', allow: 'HEAD, GET, DELETE' });
    expect(routeOf('OPTIONS', '/api/batch')).to.deep.equal({ kind: 'not-allowed', allow: 'POST' });
    expect(routeOf('PROPFIND', '/api/dns')).to.deep.equal({ kind: 'not-implemented', allow: 'HEAD, GET' });
    expect(routeOf('PROPFIND', '/nope')).to.deep.equal({ kind: 'not-implemented', allow: '' });
    expect(routeOf('GET', '/nope')).to.deep.equal({ kind: 'not-found' });
  });

  it("labels a path by its route's pattern, and the panel's own pages not at all; a route not served is unknown but labelled", () => {
    expect(router.match('/api/v1/documents/7')?.routes.label).to.equal('/api/v1/documents/:id');
    expect(router.match('/admin/sign-in')?.routes.label).to.equal(null);
    const withoutToken = new Router(ROUTES, (route: Route) => !route.needsAdminToken);
    expect(withoutToken.route('GET', '/metrics')).to.deep.equal({ kind: 'not-found' });
    expect(withoutToken.match('/metrics')?.routes.label).to.equal('/metrics');
  });
});

describe('the one Authorization parser', () => {
  it('reads the token of a Bearer header in any case, trimmed; null for none or another scheme; empty for none named', () => {
    expect(bearerToken(undefined)).to.equal(null);
    expect(bearerToken('')).to.equal(null);
    expect(bearerToken('Basic eDp5')).to.equal(null);
    expect(bearerToken('Bearerx')).to.equal(null);
    expect(bearerToken('Bearer')).to.equal('');
    expect(bearerToken('bearer   ')).to.equal('');
    expect(bearerToken('BEARER  dsr_a ')).to.equal('dsr_a');
    expect(bearerToken('Bearer a b')).to.equal('a b');
  });
});

describe('where a request came from', () => {
  const request = (headers: Record<string, string>, remoteAddress = '10.0.0.9', encrypted = false): HttpRequest => ({
    method: 'GET',
    target: '/',
    prefix: '',
    header: (name) => headers[name],
    body: null,
    encrypted,
    remoteAddress,
    signal: new AbortController().signal,
  });
  const forwarded = {
    host: 'inner:3000',
    'x-forwarded-proto': 'https, http',
    'x-forwarded-host': 'public.example, other',
    'x-forwarded-for': 'spoofed, 203.0.113.7',
  };

  it('reads the connection unless the proxy in front is trusted; then its scheme, host and the address it added (the last)', () => {
    expect(clientFacts(request(forwarded), false)).to.deep.equal({ protocol: 'http', host: 'inner:3000', ip: '10.0.0.9' });
    expect(clientFacts(request(forwarded), true)).to.deep.equal({ protocol: 'https', host: 'public.example', ip: '203.0.113.7' });
    expect(clientFacts(request({ host: 'a.example' }, '10.0.0.9', true), false).protocol).to.equal('https');
    expect(clientFacts(request({ host: 'user@a.example:81' }), false).host).to.equal('a.example:81');
    expect(clientFacts({ ...request({}), remoteAddress: undefined }, false)).to.deep.equal({
      protocol: 'http',
      host: '',
      ip: '',
    });
  });

  it('compares a mount prefix without its trailing slash', () => {
    expect([mountPrefix(undefined), mountPrefix('/'), mountPrefix('/dossier/'), mountPrefix('/dossier')]).to.deep.equal([
      '',
      '',
      '/dossier',
      '/dossier',
    ]);
  });
});
