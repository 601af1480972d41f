import { ZONE_TABLE } from './zone-table.js';

/**
 * Second-level zones that run a registry of their own, each with its whois server: a name under one
 * (`bestb.uy.com`, `coco.co.pl`, `udr.hk.com`) is a registration at that registry, not a subdomain of
 * the zone's own name (`uy.com`, held at Verisign by the zone's operator).
 *
 * The table is generated (`zone-table.ts`, by `scripts/whois-zones.mjs`, docs/whois.md) from the
 * Public Suffix List's private section (`scripts/psl-private.dat`, MPL-2.0): every suffix of the
 * blocks whose operator is a registry, with the whois server that the registries and the public whois
 * clients' server tables give it (`scripts/whois-zone-sources.json`: the registries' own lists,
 * rfc1036/whois's `tld_serv_list`, weppos/whois's `data/tld.json`, Net::Whois::Raw, richardpenman/whois),
 * and the zones that registries publish beyond the List; less the zones that the List's ICANN section
 * lists (their names already keep their own registrable name). weppos/whois's licence, for the rows
 * taken from it:
 *
 * The MIT License (MIT)
 *
 * Copyright (c) 2009-2018 Simone Carletti
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
 */

/** The zones one registry's whois server answers for. */
export interface ZoneRegistry {
  /** Its whois server: a host name (port 43), or `host:port`. */
  server: string;
  /** The zones, each a suffix of two labels or more (`uk.com`). */
  zones: readonly string[];
}

/** Every registry-run second-level zone known, grouped by whois server (see the sources above). */
export const REGISTRY_ZONES: readonly ZoneRegistry[] = ZONE_TABLE;
