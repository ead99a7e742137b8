// An animal's record members in words, as printed papers show them (the bill of sale, the
// dealer's book). Pure.
import type { Breed, Pet, Source } from './pet.schemas.ts';

/** "Labrador Retriever", "Labrador Retriever × Poodle (mixed)", "Labrador Retriever (mixed)". */
export function breedWords(b: Breed | undefined): string | undefined {
  if (b === undefined) return undefined;
  if (!b.mixed) return b.primary;
  return b.secondary === undefined ? `${b.primary} (mixed)` : `${b.primary} × ${b.secondary} (mixed)`;
}

/** "breeder: Green Acres Kennels, licence MD-BR-2041" — the kind, the name, the licence (the address apart). */
export function sourceWords(s: Source | undefined): string | undefined {
  if (s === undefined) return undefined;
  return [s.kind, s.name === undefined ? '' : `: ${s.name}`, s.licence === undefined ? '' : `, licence ${s.licence}`].join('');
}

/** The birth date, marked when it is an estimate. */
export function birthWords(p: Pet): string | undefined {
  if (p.birthDate === undefined) return undefined;
  return p.birthDateEstimated ? `${p.birthDate} (estimated)` : p.birthDate;
}

const yesNo = (v: boolean | undefined) => (v === undefined ? undefined : v ? 'yes' : 'no');

/** The record members a paper prints, with their labels and their words (undefined: the animal lacks it). */
export function recordLines(p: Pet): readonly (readonly [string, string | undefined])[] {
  return [
    ['Breed', breedWords(p.breed)],
    ['Sex', p.sex],
    ['Date of birth', birthWords(p)],
    ['Colour and markings', p.colour],
    ['Microchip', p.microchip],
    ['Neutered', yesNo(p.neutered)],
    ['Acquired on', p.acquiredAt],
    ['Acquired from', sourceWords(p.source)],
    ['Source address', p.source?.address],
  ];
}
