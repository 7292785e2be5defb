/**
 * Where sample companies and postings are: prefecture, city, town, postal code and telephone
 * number drawn together from sample-data/data/places.json, so that a 渋谷区 address has a 150-/151-
 * postal code and an 03 number. The facts and their sources are in that file.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/project-root.js';
import type { Random } from './random.js';

interface CityFacts {
  name: string;
  weight: number;
  /** first three digits of the city's postal codes */
  postal: string[];
  /** area code with its leading 0, e.g. "03", "045", "0422" */
  area: string;
  /** leading digits of the exchanges in use, where the area code alone says too little */
  exchangeStarts?: string[];
  /** "丸の内:3": the town and how many 丁目 it has (0: none) */
  towns: string[];
}

interface PlacesFile {
  prefectures: Record<string, { weight: number; cities: CityFacts[] }>;
}

export interface Town {
  name: string;
  chome: number;
}

export interface City {
  prefectureId: number;
  name: string;
  postal: readonly string[];
  area: string;
  exchangeStarts: readonly string[];
  towns: readonly Town[];
}

const file = JSON.parse(
  readFileSync(path.join(projectRoot, 'sample-data', 'data', 'places.json'), 'utf8'),
) as PlacesFile;

const citiesOf = new Map<number, ReadonlyArray<readonly [City, number]>>();
for (const [id, prefecture] of Object.entries(file.prefectures)) {
  citiesOf.set(
    Number(id),
    prefecture.cities.map((facts) => [
      {
        prefectureId: Number(id),
        name: facts.name,
        postal: facts.postal,
        area: facts.area,
        exchangeStarts: facts.exchangeStarts ?? [],
        towns: facts.towns.map((entry) => {
          const [name, chome] = entry.split(':');
          return { name: name as string, chome: Number(chome) };
        }),
      },
      facts.weight,
    ]),
  );
}

/** Prefecture ids with their share of companies: Tokyo, then Osaka, Kanagawa and Aichi. */
export const prefectureWeights: ReadonlyArray<readonly [number, number]> = Object.entries(
  file.prefectures,
).map(([id, prefecture]) => [Number(id), prefecture.weight]);

export function pickCity(random: Random, prefectureId: number): City {
  const cities = citiesOf.get(prefectureId);
  if (!cities) throw new Error(`no places for prefecture ${prefectureId}`);
  return random.weighted(cities);
}

export function cityNamed(prefectureId: number, name: string): City {
  const city = citiesOf.get(prefectureId)?.find(([entry]) => entry.name === name)?.[0];
  if (!city) throw new Error(`no place ${name} in prefecture ${prefectureId}`);
  return city;
}

export function pickPlace(random: Random): City {
  return pickCity(random, random.weighted(prefectureWeights));
}

/**
 * Town codes mostly read 0xxx (100-0005, 060-0001); a large office has its own 8xxx code
 * (事業所個別番号, e.g. 100-8310).
 */
export function postalCode(random: Random, city: City, largeOffice = false): string {
  const last =
    largeOffice && random.chance(0.5)
      ? 8000 + random.int(0, 999)
      : random.chance(0.8)
        ? random.int(1, 99)
        : random.int(100, 999);
  return `${random.pick(city.postal)}-${String(last).padStart(4, '0')}`;
}

/** Exchange for a city: the listed leading digits, padded with digits; never starting 0 or 1. */
function exchange(random: Random, city: City): string {
  const length = 6 - city.area.length; // area code without its 0 + exchange = 5 digits
  let digits = city.exchangeStarts.length > 0 ? random.pick(city.exchangeStarts) : String(random.int(2, 9));
  while (digits.length < length) digits += String(random.int(0, 9));
  return digits.slice(0, length);
}

/** A ten-digit fixed-line number: 03-3213-1234, 045-662-1234, 0422-21-1234. */
export function phoneNumber(random: Random, city: City): string {
  return `${city.area}-${exchange(random, city)}-${String(random.int(0, 9999)).padStart(4, '0')}`;
}

/** The fax beside a phone number: same exchange, usually the next subscriber number. */
export function faxBeside(random: Random, phone: string): string {
  const parts = phone.split('-');
  const subscriber = Number(parts[2]);
  const next = random.chance(0.7) ? (subscriber + 1) % 10_000 : random.int(0, 9999);
  return `${parts[0]}-${parts[1]}-${String(next).padStart(4, '0')}`;
}
