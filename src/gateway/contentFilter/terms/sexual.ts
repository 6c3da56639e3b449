import type { TermList } from './types';

/**
 * Sexual content. Only explicit nudity, graphic sexual activity and requests for pornography are
 * refused on their own; the milder lists matter only next to a minor cue (minors.ts) or a
 * coercion cue (consent.ts). Romance that states adult, non-explicit, fully clothed has none of
 * these words, and "no nudity" is handled by negation (negation.ts), not by these lists.
 */

// prettier-ignore
export const SUGGESTIVE: TermList = {
  tag: 'suggestive',
  kind: 'a suggestive term',
  echo: true,
  terms: [
    'sexy', 'sexier', 'sexiest', 'sexily', 'seductive', 'seductively', 'seduce', 'seduces',
    'seducing', 'seduction', 'sensual', 'sensually', 'sultry', 'erotic', 'erotica', 'erotically',
    'lingerie', 'panties', 'panty', 'thong', 'thongs', 'g string bikini|thong|panties', 'gstring',
    'garter belt',
    'suggestive', 'suggestively', 'provocative', 'provocatively', 'lewd', 'lewdly', 'ecchi',
    'fetish', 'fetishes', 'fetishistic', 'kinky', 'bdsm', 'bondage', 'dominatrix', 'boudoir',
    'pinup', 'pin up girl|girls|model|style|pose|poster', 'cleavage', 'busty', 'boobs', 'boobies', 'titties', 'big tits',
    'big|huge|large breasts', 'twerk', 'twerking', 'wet t shirt', 'wet tshirt', 'skimpy',
    'scantily clad', 'scantily', 'revealing outfit|clothes|clothing|pose',
    'see through lingerie|top|blouse|dress|nightgown|shirt|bra',
    'seethrough lingerie|top|blouse|dress|nightgown|shirt|bra', 'sheer lingerie', 'micro bikini', 'microbikini', 'spread legs',
    'legs spread', 'bedroom eyes', 'come hither', 'making out', 'make out',
    'pole dance|dancing|dancer', 'stripper', 'strippers', 'striptease', 'strip tease',
    'strip club|show', 'lap dance', 'lapdance', 'aroused', 'arousal', 'horny', 'lust', 'lustful',
    'lusty', 'sugar daddy', 'seminude', 'semi nude', 'half naked',
    'halfnaked', 'half nude', 'partially nude|naked', 'partial nudity', 'implied nudity',
    'not fully clothed', 'barely clothed|dressed', 'nipples', 'crotch shot', 'camel toe',
    'no bra|panties|underwear', 'braless', 'onlyfans', 'playboy', 'centerfold', 'orgasmic', 'sex appeal', 'sex symbol', 'fondle', 'fondling', 'fondled', 'caressing her|his body',
    'sexo', 'sexe',
  ],
};

/** The idea or act of sex, short of explicit: also what a coercion cue needs next to it. */
// prettier-ignore
export const SEXUAL: TermList = {
  tag: 'sexual',
  kind: 'a sexual term',
  echo: true,
  terms: [
    'sex', 'sexual', 'sexually', 'sexualized', 'sexualised', 'sexualizing', 'sexualising',
    'sexualization', 'sexualisation', 'undressing', 'undresses', 'undress', 'strip naked',
    'stripping naked|off', 'strips naked|off', 'taking|takes|take off her|his|their clothes',
    'touching her|his|their body|breasts|crotch', 'private parts', 'intimate parts',
    'sexual pose|poses|posing',
  ],
};

// prettier-ignore
export const NUDITY: TermList = {
  tag: 'nudity',
  kind: 'a nudity term',
  echo: true,
  terms: [
    'nude', 'nudes', 'naked', 'nudity', 'nakedness', 'in the nude', 'unclothed', 'undressed',
    'fully|completely|totally|entirely nude|naked', 'stark|butt|bare|buck naked', 'full frontal',
    'nudist', 'nudists', 'nudism', 'naturist', 'naturists', 'naturism', 'skinny dipping',
    'skinnydipping', 'no clothes|clothing', 'without clothes|clothing', 'with no clothes|clothing',
    'wearing nothing', 'wearing no clothes|clothing', 'with nothing on',
    'not|isnt|arent wearing ?any clothes|clothing|anything', 'not clothed', 'birthday suit',
    'exposed breasts|nipples|genitals|buttocks|crotch|vulva|penis', 'breasts|nipples|genitals exposed',
    'bare breasts|breasted|buttocks', 'naked breasts', 'visible nipples', 'nipples visible',
    'exposed nipple', 'nipple slip', 'nip slip', 'areola', 'areolas', 'areolae', 'pubic hair',
    'pubic area', 'showing|flashing|baring|exposing her|his breasts|boobs|tits|nipples|genitals',
    'breasts|boobs|tits out', 'nood', 'noods', 'nudez', 'nackt', 'desnudo', 'desnuda', 'desnudos', 'desnudas',
  ],
};

/** Topless is nudity, except for a subject described only as male (a topless surfer dude). */
export const TOPLESS: TermList = {
  tag: 'topless',
  kind: 'a nudity term',
  echo: true,
  terms: ['topless', 'top less', 'toplessness'],
};

// prettier-ignore
export const SEXUAL_ACTIVITY: TermList = {
  tag: 'sexact',
  kind: 'a term for graphic sexual activity',
  terms: [
    'sex scene', 'sex scenes', 'sex act', 'sex acts', 'having|have|has|had sex', 'sex position',
    'sex positions', 'sexual position|positions', 'sexual intercourse', 'intercourse',
    'sexual act|acts|activity', 'sex tape', 'sex video', 'making|make|makes love', 'lovemaking',
    'love making', 'oral sex', 'anal sex', 'anal', 'group sex', 'cybersex', 'blowjob', 'blowjobs',
    'blow job', 'blow jobs', 'handjob', 'handjobs', 'hand job', 'footjob', 'rimjob', 'fellatio',
    'cunnilingus', 'masturbate', 'masturbates', 'masturbating', 'masturbation', 'masturbated',
    'jerking|jerk|jacking off', 'fingering herself|himself', 'touching herself|himself',
    'orgasm', 'orgasms', 'orgasming', 'ejaculate', 'ejaculates', 'ejaculating',
    'ejaculation', 'cumshot', 'cum on|shot|covered|dripping|inside|facial', 'cumming', 'creampie', 'bukkake', 'gangbang', 'gang bang',
    'orgy', 'orgies', 'threesome', 'foursome', 'doggy style', 'doggystyle', 'missionary position',
    'cowgirl position', 'reverse cowgirl', 'sixty nine position', '69 position',
    'sexual|vaginal|anal penetration', 'penetrating her|him', 'sucking dick|cock', 'giving head',
    'incest', 'incestuous', 'bestiality', 'zoophilia', 'sex with ?an|a animal|animals|dog|horse',
    'fucking her|him|them|each other', 'getting fucked',
    'people|couple|couples|man|woman|men|women|they|guy|guys|girl|girls fucking', 'humping', 'dry humping', 'foreplay',
    'wet pussy',
  ],
};

// prettier-ignore
export const GENITALS: TermList = {
  tag: 'genital',
  kind: 'an anatomical sexual term',
  terms: [
    'penis', 'penises', 'erect penis', 'vagina', 'vaginas', 'vaginal', 'vulva', 'vulvas',
    'clitoris', 'clit', 'labia', 'testicles', 'testicle', 'scrotum', 'genitals', 'genitalia',
    'genital', 'anus', 'semen', 'cock and balls',
  ],
};

// prettier-ignore
export const EXPLICIT: TermList = {
  tag: 'explicit',
  kind: 'a request for explicit or pornographic material',
  echo: true,
  terms: [
    'porn', 'porno', 'pornos', 'pornographic', 'pornography', 'pron', 'xxx', 'nsfw', 'hentai',
    'rule 34', 'rule34', 'r 18', 'sexually explicit', 'explicit sex', 'explicit sexual',
    'explicit content', 'explicit image|images|photo|photos|picture|pictures',
    'explicit scene|scenes|video|videos|art|version|nudity|material', 'graphic sex',
    'graphic sexual', 'hardcore sex|porn|scene', 'x rated', 'xrated', 'adult film|films|video|videos',
    'porn star', 'pornstar', 'pornstars', 'pornografia', 'pornographie', 'pornografie',
  ],
};

/**
 * Harmless phrases that contain the words above. Each hides its words from every other rule.
 */
// prettier-ignore
export const SEXUAL_EXEMPT: TermList = {
  tag: 'exempt',
  kind: 'harmless phrase',
  terms: [
    // colour, not state: a nude-coloured dress, nude lipstick, nude and gold heels
    'nude <nudeColour>', 'nude <colour> <nudeColour>', 'nude and|or <colour>',
    'nude black|white|brown|tan|bronze|caramel|peach|rose <nudeColour>',
    'shade|shades|tone|tones|hint of nude',
    // bare or plain, not unclothed: the naked eye, a naked flame, a naked cake, naked mole rat
    'naked <nakedBare>', 'the naked gun', 'naked and afraid',
    // Latin honours
    'summa|magna cum laude', 'cum laude',
    // biology and health, not sex
    'sex education', 'sex ed', 'sex chromosome', 'sex chromosomes', 'biological sex', 'sex of',
    'same sex', 'opposite sex', 'sex differences', 'sex ratio', 'sex hormones', 'sex cells',
    'sex determination', 'sex linked', 'sexual health|reproduction|selection|dimorphism|orientation',
    'sexually transmitted', 'sexual wellness clinic',
    // names and drinks
    'sex pistols', 'sex and the city', 'sex on the beach',
    // figurative: food porn, an orgy of colour, Super Bowl XXX
    '<pornFigurative> porn',
    'orgy of color|colour|colors|colours|light|sound|violence|destruction|food|flavor|flavors',
    'orgy of flavour|flavours|consumption|spending|excess|shapes|textures|patterns|flowers', 'super bowl xxx', 'xxx l', 'xxxl',
    // not sexual activity
    'making love hearts', 'anal retentive', 'anal glands', 'anal gland', 'anal fin', 'anal fins',
    'penetration test|testing|tester|rate|depth', 'stripping paint|wallpaper|varnish',
    'bondage tape', 'lust for life',
  ],
};

export const SEXUAL_LISTS: readonly TermList[] = [
  SUGGESTIVE,
  SEXUAL,
  NUDITY,
  TOPLESS,
  SEXUAL_ACTIVITY,
  GENITALS,
  EXPLICIT,
  SEXUAL_EXEMPT,
];
