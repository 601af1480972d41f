// Preloaded (node --import) into the programs that the snippet tests start: the machine's resolver,
// for them, is the loopback DNS server that `SNIPPETS_RESOLVER` names (`127.0.0.1:PORT`), so a program
// that asks "the system's resolvers" asks it and nothing outside. Node's default resolver takes it, and
// so does each `Resolver` made afterwards, as a new one would read it from /etc/resolv.conf.
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';

const servers = [process.env.SNIPPETS_RESOLVER ?? ''];
if (servers[0] === '') throw new Error('SNIPPETS_RESOLVER names no server');

dns.setServers(servers);
dns.promises.setServers(servers);
const { Resolver } = dns;
const { Resolver: PromiseResolver } = dns.promises;
dns.Resolver = class extends Resolver {
  constructor(options?: dns.ResolverOptions) {
    super(options);
    this.setServers(servers);
  }
};
dns.promises.Resolver = class extends PromiseResolver {
  constructor(options?: dns.ResolverOptions) {
    super(options);
    this.setServers(servers);
  }
};
syncBuiltinESMExports();
