/**
 * Second-level zones that run a registry of their own, each with its whois server: a name under one
 * (`bestb.uy.com`, `coco.co.pl`) is a registration at that registry, not a subdomain of the zone's
 * own name (`uy.com`, held at Verisign by the zone's operator).
 *
 * Source: the suffix rows of weppos/whois `data/tld.json` (commit 0024f3411725c1ef32f950375d4d271fdc0cee1a),
 * the whois client whose captures make up `test/fixtures/whois-corpus`, taken as they are: every row with
 * two labels or more and a `host`, except the zones that the Public Suffix List's ICANN section lists
 * (`ac.uk`, `co.za`, `in.ua`, `e164.arpa`, …: their names already keep their own registrable name, and
 * their TLD's registry is asked as for any other name). Its licence:
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

/** Every registry-run second-level zone known, grouped by whois server (see the source above). */
export const REGISTRY_ZONES: readonly ZoneRegistry[] = [
  {
    server: 'whois.centralnic.com',
    zones: [
      'ae.org',
      'ar.com',
      'br.com',
      'cn.com',
      'com.de',
      'com.se',
      'de.com',
      'eu.com',
      'gb.com',
      'gb.net',
      'hu.com',
      'hu.net',
      'jp.net',
      'jpn.com',
      'kr.com',
      'no.com',
      'qc.com',
      'ru.com',
      'sa.com',
      'se.com',
      'se.net',
      'uk.com',
      'uk.net',
      'us.com',
      'uy.com',
      'za.bz',
      'za.com',
      'africa.com',
      'gr.com',
      'in.net',
      'us.org',
    ],
  },
  { server: 'whois.centralnic.net', zones: ['co.com'] },
  { server: 'whois.za.net', zones: ['za.net'] },
  { server: 'whois.eu.org', zones: ['eu.org'] },
  { server: 'whois.za.org', zones: ['za.org'] },
  { server: 'whois.nic.priv.at', zones: ['priv.at'] },
  { server: 'whois.co.ca', zones: ['co.ca'] },
  {
    server: 'whois.smallregistry.net',
    zones: [
      'aeroport.fr',
      'avocat.fr',
      'chambagri.fr',
      'chirurgiens-dentistes.fr',
      'experts-comptables.fr',
      'geometre-expert.fr',
      'medecin.fr',
      'notaires.fr',
      'pharmacien.fr',
      'port.fr',
      'veterinaire.fr',
    ],
  },
  { server: 'whois.co.pl', zones: ['co.pl'] },
  { server: 'whois.informika.ru', zones: ['edu.ru'] },
];
