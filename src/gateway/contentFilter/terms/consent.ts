import type { TermList } from './types';

/**
 * Non-consent. The strong list is refused on its own. The cue list (force, coercion,
 * incapacity, hidden cameras) is everyday language in thrillers and news, so it counts only
 * within a few words of a sexual, nudity or explicit term (rules.ts, NC_WINDOW).
 */

// prettier-ignore
export const NC_STRONG_AWARE: TermList = {
  tag: 'ncStrong',
  kind: 'a term for sexual violence',
  // Nouns that name the topic on awareness posters and hotline signs: an awareness context
  // lifts these when nothing in the prompt is sexual (rules.ts). Verbs that depict the act
  // ("raped", "being assaulted") are in NC_STRONG and are never lifted.
  awareOk: true,
  terms: [
    'rape', 'rapes', 'rapist', 'rapists', 'gang rape', 'date rape', 'statutory rape',
    'sexual assault', 'sexual assaults', 'sexual abuse', 'sexual violence', 'sexual harassment',
    'sexual coercion', 'sex trafficking', 'sexual exploitation', 'revenge porn', 'sextortion',
    'molestation', 'sexual predator', 'sexual predators',
  ],
};

// prettier-ignore
export const NC_STRONG: TermList = {
  tag: 'ncStrong',
  kind: 'a term for non-consensual sexual content',
  terms: [
    'raped', 'raping', 'gang raped', 'sexually assault', 'sexually assaulted',
    'sexually assaulting', 'sexually abuse', 'sexually abused', 'sexually abusing',
    'sexually violent', 'sexually harass', 'sexually harassed', 'sexually harassing',
    'sex trafficked', 'molest', 'molests', 'molested', 'molesting', 'molester', 'molesters',
    'grope', 'gropes', 'groped', 'groping', 'forced sex', 'forcible sex', 'forced intercourse',
    'forced to have sex', 'forced to strip|undress', 'forced into sex|prostitution',
    'sex slave', 'sex slaves', 'sex slavery', 'sexual slavery', 'upskirt', 'upskirts',
    'creepshot', 'creepshots', 'downblouse', 'noncon', 'dubcon',
    'non consensual sex|sexual|porn|nudes|nude|nudity|intercourse|pornography',
    'nonconsensual sex|sexual|porn|nudes|nude|nudity|intercourse|pornography',
    'nudify', 'nudifier', 'nudified', 'undress this|the photo|picture|image|person|woman|girl',
    'remove|removing her|his|their clothes|clothing', 'take her|his|their clothes off',
    'x ray her|his|their clothes', 'xray her|his|their clothes', 'see through her|his|their clothes',
    'deepfake porn|nude|nudes|sex', 'deep fake porn|nude|nudes|sex', 'fake nudes',
    'touching her|him|them inappropriately', 'inappropriate touching', 'inappropriately touching',
    'necrophilia', 'forced kiss', 'forced kisses', 'forcing a kiss', 'forcibly kissing|kissed',
    'forced to kiss', 'forcing her|him|them to kiss',
    'forcing|forced|forces himself|herself on|upon',
  ],
};

// prettier-ignore
export const NC_CUE: TermList = {
  tag: 'ncCue',
  kind: 'a coercion or incapacity cue',
  echo: true,
  terms: [
    'forced', 'forcing', 'forcibly', 'coerced', 'coercing', 'coercion', 'coerce',
    'against her|his|their will', 'without ?her|his|their consent', 'no consent',
    'non consensual', 'nonconsensual', 'unwilling', 'unwillingly', 'unconscious', 'passed out',
    'drugged', 'drugging', 'roofied', 'rohypnol', 'chloroform', 'chloroformed', 'blackmailed',
    'blackmailing', 'blackmail', 'threatened', 'at gunpoint', 'at knifepoint', 'held down',
    'pinned down', 'tied up', 'restrained', 'kidnapped', 'abducted', 'captive',
    'trafficked', 'helpless', 'hidden camera', 'spy camera', 'secretly filmed|filming|photographed',
    'voyeur', 'voyeuristic', 'peeping tom', 'without her|his|their knowledge',
    'while she|he is asleep|sleeping|unconscious',
  ],
};

// prettier-ignore
export const CONSENT_EXEMPT: TermList = {
  tag: 'exempt',
  kind: 'harmless phrase',
  terms: [
    // art and history: Bernini's Rape of Proserpina, Pope's Rape of the Lock, Nanking 1937
    'rape of proserpina|persephone|europa|lucretia|ganymede|nanking|nanjing',
    'rape of the sabine women', 'rape of the sabines', 'rape of the lock', 'rape of the daughters of leucippus',
    'rapeseed', 'rapeseed oil|field|fields',
    // everyday force
    'forced perspective', 'forced smile', 'forced march', 'forced labor|labour',
    'forced entry', 'forced bulbs', 'tied up boat|boats',
  ],
};

export const CONSENT_LISTS: readonly TermList[] = [
  NC_STRONG_AWARE,
  NC_STRONG,
  NC_CUE,
  CONSENT_EXEMPT,
];
