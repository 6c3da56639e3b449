import type { TermList } from './types';

/**
 * Minor and young-looking cues. On their own they are harmless (a child flying a kite, teenagers
 * playing basketball); together with any sexual or suggestive term anywhere in the prompt they
 * are refused as sexual_minors. The whole prompt is the window on purpose: splitting "a teen."
 * from "in lingerie." into two sentences must not get through.
 *
 * Deliberately NOT cues: "girl", "boy" (used for adults every day), "young woman/man",
 * "student", and "baby" (an endearment, baby blue, baby spinach, a baby bump in a maternity
 * shoot). "young girl", "little boy", "schoolgirl" and ages are cues.
 */

// prettier-ignore
export const MINOR: TermList = {
  tag: 'minor',
  kind: 'a minor or young-looking cue',
  echo: true,
  terms: [
    'child', 'children', 'kid', 'kids', 'kiddie', 'kiddies', 'kiddo', 'toddler', 'toddlers',
    'infant', 'infants', 'newborn', 'newborns', 'preschooler', 'preschoolers', 'kindergartner',
    'kindergartners', 'kindergartener', 'kindergarteners', 'kindergarten student|kid|kids|girl|boy',
    'schoolchild', 'schoolchildren', 'schoolkid', 'schoolkids', 'schoolgirl', 'schoolgirls',
    'schoolboy', 'schoolboys', 'school girl|girls|boy|boys|uniform|uniforms',
    'little|young girl|girls|boy|boys', 'girl|boy|cub scout|scouts', 'teen', 'teens', 'teenage',
    'teenaged', 'teenager', 'teenagers', 'teen aged', 'tween', 'tweens', 'preteen', 'preteens',
    'pre teen', 'pre teens', 'adolescent', 'adolescents', 'pubescent', 'prepubescent',
    'pre pubescent', 'underage', 'underaged', 'under age|aged', 'minors', 'a|the minor',
    'loli', 'lolis', 'lolita', 'lolitas', 'shota', 'shotas', 'childlike', 'child like',
    'childish body', 'young|younger looking', 'look|looks|looking|appear|appears|appearing young|younger|underage',
    'baby faced', 'babyface', 'baby face', 'barely legal',
    // ages: "a 15 year old", "15yo", "aged fifteen", "under 18", "she is 14", "looks 13"
    '<u18> year|years|yr|yrs ?old', '<u18> year|years|yr|yrs olds', '<u18> yo',
    'aged|age|ages <u18>', '<u18> years of age', 'under 18|eighteen', 'under the age of',
    'below 18|eighteen', 'not yet 18|eighteen', 'she|he|who is <u18>', 'shes|hes <u18>',
    'looks|looking|appears|appearing <u18>', 'boy|girl|boys|girls|child|kid|kids|son|daughter of <u18>',
    // school grades before high-school graduation
    '<gradeOrdinal> grader|graders|grade', '<u18> th|st|nd|rd grader|graders|grade',
    'middle|high|elementary|grade schooler|schoolers', 'junior high schooler|schoolers',
    'middle|high|elementary school student|students|girl|girls|boy|boys|kid|kids',
    'junior high student|students|girl|girls|boy|boys|kid|kids', 'junior high school student|students',
    // cheap non-English basics
    'enfant', 'enfants', 'menor de edad', 'menores', 'minderjahrig', 'minderjaehrig',
  ],
};

/** Terms that mean sexual content with minors on their own. */
// prettier-ignore
export const CSAM: TermList = {
  tag: 'csam',
  kind: 'a term for sexual content involving minors',
  terms: [
    'child porn', 'child pornography', 'kiddie porn', 'kiddy porn', 'child erotica', 'lolicon',
    'shotacon', 'jailbait', 'underage porn', 'kinderporno', 'pthc',
  ],
};

/**
 * The same, but named in news, policy and prevention material too, so an awareness context
 * (a prevention hotline poster) lifts them when nothing else in the prompt is sexual.
 */
// prettier-ignore
export const CSAM_AWARE: TermList = {
  tag: 'csam',
  kind: 'a term for sexual content involving minors',
  awareOk: true,
  terms: [
    'csam', 'child sexual abuse', 'child sexual abuse material', 'child sexual exploitation',
    'pedophile', 'pedophiles', 'paedophile', 'paedophiles', 'pedophilia', 'paedophilia',
    'pedophilic', 'pedo', 'pedos', 'paedo', 'paedos', 'child molester', 'child molesters',
  ],
};

// prettier-ignore
export const MINOR_EXEMPT: TermList = {
  tag: 'exempt',
  kind: 'harmless phrase',
  terms: [
    // kid leather and baby goats
    'kid gloves', 'kid glove', 'kid leather', 'kid goat', 'kid goats', 'kid mohair', 'kidskin',
    // idioms
    'inner child', 'poster child', 'flower child', 'child of god',
    'child safety|safe|proof|friendly|free', 'childfree', 'kid friendly|safe|free', 'kids menu',
    'kids meal', 'billy the kid', 'karate kid',
    // music, sport, geography: "a minor chord", "minor league baseball" ("in A minor" is
    // lifted by a music context in rules.ts: "in a minor" can also be "in a minor's bedroom")
    'a|the minor key|chord|scale|third|seventh|injury|injuries|role|character',
    'a|the minor detail|details|change|changes|league|planet|issue|flaw|part|note|arcana',
    'minor league', 'minor leagues', 'asia minor', 'ursa minor',
    // titles
    'teen titans', 'teenage mutant ninja turtles', 'teen wolf',
    // lolita fashion is a Japanese street style, not a child
    'gothic|sweet|classic|punk|country|hime lolita',
    'lolita fashion|dress|dresses|style|outfit|coordinate|aesthetic|sunglasses',
    // a 12 year old whisky, a 10 year old dog
    '<u18> year|years|yr|yrs ?old <nonPerson>', '<u18> year|years aged <nonPerson>',
    '<u18> year|years|yr|yrs ?old single malt|barrel',
    // time and sizes: "under 18 minutes", "aged 12 months" (a cheese or a whisky)
    'under 18|eighteen minutes|seconds|months|days|inches|cm|kg|dollars',
    'aged|age|ages <u18> months|weeks|days', '<u18> year|years|yr|yrs warranty',
    // heights and weights: "she is 5 feet tall", "looks 10 years younger"
    'she|he|who is <u18> feet|foot|ft|inches|cm|m|meters|metres|kg|lbs|pounds|stone|months',
    'shes|hes <u18> feet|foot|ft|inches|cm|m|meters|metres|kg|lbs|pounds|stone|months',
    'looks|looking|appears|appearing <u18> years|year younger|older',
  ],
};

export const MINOR_LISTS: readonly TermList[] = [MINOR, CSAM, CSAM_AWARE, MINOR_EXEMPT];
