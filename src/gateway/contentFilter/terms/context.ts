import type { TermList } from './types';

/**
 * Context that lifts or blocks other rules, and the words of negation.
 *
 * Classical art (decision): nudity words are allowed when they describe a physical or painted
 * artwork in a classical tradition ("a marble statue of a nude athlete", "Titian's reclining
 * nude", "a charcoal figure study of a nude model") and nothing asks for a photographic, real
 * person. The art word must sit right next to the nudity word (rules.ts), so "a nude woman next
 * to a marble statue" is still refused. Sexual activity, genital terms and minors are never
 * lifted by art context.
 */

/** The artwork itself. */
// prettier-ignore
export const ART_OBJECT: TermList = {
  tag: 'artObject',
  kind: 'an artwork',
  terms: [
    'statue', 'statues', 'sculpture', 'sculptures', 'sculpted', 'bust', 'busts', 'figurine',
    'figurines', 'fresco', 'frescoes', 'frescos', 'painting', 'paintings', 'artwork', 'artworks',
    'drawing', 'drawings', 'sketch', 'sketches', 'study', 'studies', 'etching', 'etchings',
    'engraving', 'engravings', 'relief', 'reliefs', 'mosaic', 'mosaics', 'carving', 'carvings',
    'canvas', 'oil painting', 'watercolor', 'watercolour', 'marble', 'bronze', 'tapestry',
    'woodcut', 'lithograph', 'masterpiece', 'figure study', 'figure studies', 'life drawing',
    'figure drawing', 'academic study',
    // the winged infants of baroque ceilings are a motif of the art, not a subject of it
    'cherub', 'cherubs', 'cherubim', 'putto', 'putti', 'amorini',
  ],
};

/** The classical tradition the artwork belongs to. */
// prettier-ignore
export const ART_CLASSIC: TermList = {
  tag: 'artClassic',
  kind: 'classical art',
  terms: [
    'marble', 'bronze', 'plaster', 'classical', 'renaissance', 'baroque', 'neoclassical',
    'rococo', 'pre raphaelite', 'greek', 'roman', 'ancient', 'antique', 'antiquity', 'museum',
    'gallery', 'louvre', 'uffizi', 'prado', 'vatican', 'hermitage', 'art history', 'charcoal',
    'academic', 'life drawing', 'figure drawing', 'figure study', 'old master', 'old masters',
    'oil painting', 'fresco', 'frescoes', 'sistine', 'hellenistic', 'medieval', 'romanticism',
  ],
};

/** Old masters, named: "Titian's reclining nude", "The Flaying of Marsyas by Titian". */
// prettier-ignore
export const ARTIST: TermList = {
  tag: 'artist',
  kind: 'an artist',
  terms: [
    // First names that are also common names (David, Leonardo, Raphael) are left out.
    'michelangelo', 'botticelli', 'titian', 'rubens', 'caravaggio', 'goya', 'rembrandt',
    'da vinci', 'canova', 'bernini', 'rodin', 'donatello', 'praxiteles',
    'ingres', 'manet', 'modigliani', 'klimt', 'degas', 'velazquez', 'boucher', 'cabanel',
    'bouguereau', 'giorgione', 'correggio', 'cranach', 'durer', 'schiele', 'matisse', 'picasso',
    'renoir', 'gauguin', 'gentileschi', 'giambologna', 'cellini', 'bosch', 'bruegel',
    'tintoretto', 'veronese', 'courbet', 'delacroix', 'gericault', 'jacques louis david',
  ],
};

/** A real-looking person rather than an artwork: vetoes the art exemption. */
// prettier-ignore
export const PHOTOREAL: TermList = {
  tag: 'photoreal',
  kind: 'photographic realism',
  terms: [
    'photorealistic', 'photoreal', 'photo realistic', 'hyperrealistic', 'hyper realistic',
    'ultra realistic', 'raw photo', 'real person', 'real woman', 'real man', 'real girl',
    'real life', 'selfie', 'selfies', 'webcam', 'live action', 'realistic skin', 'dslr',
    'instagram', 'onlyfans',
  ],
};

/** Anatomy in medicine and teaching: lifts the genital list, nothing else. */
// prettier-ignore
export const MEDICAL: TermList = {
  tag: 'medical',
  kind: 'a medical context',
  terms: [
    'medical', 'anatomical', 'anatomy', 'diagram', 'diagrams', 'textbook', 'clinical',
    'cross section', 'cross sectional', 'urology', 'urological', 'gynecology', 'gynecological',
    'gynaecology', 'gynaecological', 'obstetric', 'obstetrics', 'physiology', 'biology',
    'health education', 'reproductive system', 'reproductive organs', 'dermatology', 'self exam',
    'pathology', 'labeled', 'labelled', 'medical illustration', 'doctor', 'physician', 'surgeon',
    'surgery', 'ultrasound', 'midwife', 'childbirth', 'birth', 'veterinary', 'vet',
  ],
};

/** Awareness and support material: lifts the awareOk terms when nothing else is sexual. */
// prettier-ignore
export const AWARE: TermList = {
  tag: 'aware',
  kind: 'an awareness context',
  terms: [
    'awareness', 'prevention', 'prevent', 'preventing', 'hotline', 'helpline', 'crisis center',
    'crisis centre', 'rape crisis', 'support group', 'support groups', 'survivors', 'survivor',
    'campaign', 'psa', 'public service announcement', 'training', 'policy', 'ribbon', 'reporting',
    'protest', 'rally', 'advocacy', 'advocates', 'counseling', 'counselling', 'shelter',
    'safeguarding', 'statistics', 'infographic', 'prevention month',
    // slogans; these swallow the term itself ("stop sexual violence" names no act)
    'stop|end|fight|combat|against sexual violence|assault|abuse|harassment|exploitation',
    'stop|end|fight|combat|against rape|trafficking', 'stop|end|fight|combat|against sex trafficking',
  ],
};

/** History, news and remembrance: lifts the call-for-violence and recruitment rules. */
// prettier-ignore
export const DOCUMENTARY: TermList = {
  tag: 'documentary',
  kind: 'a documentary context',
  terms: [
    'memorial', 'memorials', 'museum', 'remembrance', 'commemoration', 'commemorating',
    'commemorate', 'vigil', 'victims', 'mourning', 'never again', 'monument', 'documentary',
    'exhibit', 'exhibition', 'history', 'historical', 'news', 'journalism', 'textbook',
    'educational', 'survivors', 'testimony', 'archive', 'archival',
  ],
};

/** Music: "a sultry ballad in A minor" names a key, not a child. */
// prettier-ignore
export const MUSIC: TermList = {
  tag: 'music',
  kind: 'a music context',
  terms: [
    'song', 'songs', 'ballad', 'melody', 'music', 'musician', 'piano', 'sonata', 'symphony',
    'concerto', 'chord', 'chords', 'guitar', 'jazz', 'singer', 'singing', 'sings', 'orchestra',
    'band', 'violin', 'cello', 'composer', 'nocturne', 'etude', 'prelude', 'fugue', 'key of',
  ],
};

export const PARENTAL: TermList = {
  tag: 'parental',
  kind: 'a parental advisory label',
  terms: ['parental advisory', 'parental advisory label|sticker|logo'],
};

/** Negators: they negate negatable terms after them (negation.ts), through FILLERS. */
// prettier-ignore
export const NEG: TermList = {
  tag: 'neg',
  kind: 'negation',
  terms: [
    'no', 'not', 'without', 'never', 'zero', 'avoid', 'avoiding', 'avoids', 'exclude',
    'excluding', 'excludes', 'nor', 'neither', 'minus', 'sans', 'free of', 'nothing', 'none',
    'dont', 'doesnt', 'shouldnt', 'cannot', 'cant', 'wont', 'isnt', 'arent', 'lacking', 'anti',
    // "do not", "is not" and the like are covered by "not"; as two-word phrases they would
    // swallow the "not" of "she is not wearing anything"
  ],
};

/** "non" negates only the word right after it: "non-sexual", "non-nude". */
export const NEG_ADJACENT: TermList = {
  tag: 'negAdjacent',
  kind: 'negation',
  terms: ['non'],
};

/** Everything after these, to the end of the line or the next --param, is a list to avoid. */
export const NEG_REGION: TermList = {
  tag: 'negRegion',
  kind: 'negation',
  // "negative:" and Midjourney's "--no" are rewritten to "negativeprompt" in normalize.ts.
  terms: ['negative prompt', 'negative prompts', 'negativeprompt', 'neg prompt'],
};

/**
 * Words allowed between a negator and the term it negates: "no explicit nudity", "without any
 * kind of sexual content", "don't show any nudity". Kept short on purpose: a garment or a body
 * word ends the negation, so "no clothes, nude" is not read as "no nude".
 */
// prettier-ignore
export const NEGATION_FILLERS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'any', 'of', 'kind', 'sort', 'type', 'form', 'hint', 'hints', 'trace',
  'traces', 'sign', 'signs', 'suggestion', 'level', 'amount', 'real', 'actual', 'full', 'partial',
  'visible', 'graphic', 'overt', 'obvious', 'heavy', 'excessive', 'gratuitous', 'content',
  'material', 'imagery', 'images', 'elements', 'themes', 'show', 'shows', 'showing', 'include',
  'includes', 'including', 'depict', 'depicts', 'depicting', 'contain', 'contains', 'containing',
  'have', 'has', 'feature', 'features', 'featuring', 'display', 'be', 'make', 'it', 'them',
  'render', 'draw', 'add', 'allowed', 'at', 'all', 'whatsoever', 'other', 'overly', 'too', 'very',
  'remotely', 'even', 'slightly', 'one', 'anyone', 'people', 'person', 'persons', 'subject',
  'subjects',
]);

export const CONTEXT_LISTS: readonly TermList[] = [
  ART_OBJECT,
  ART_CLASSIC,
  ARTIST,
  PHOTOREAL,
  MEDICAL,
  AWARE,
  DOCUMENTARY,
  PARENTAL,
  MUSIC,
  NEG,
  NEG_ADJACENT,
  NEG_REGION,
];
