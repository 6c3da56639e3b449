import type { TermList } from './types';

/**
 * Illegal, hateful and extremely violent content. Almost every word here is also everyday
 * language in history, news, games and horror, so very little is refused on its own: the rules
 * (rules.ts) ask for a relation between two lists, such as a glorifying verb directly before a
 * perpetrator, a protected group compared to vermin, or instructions next to a weapon.
 */

/**
 * Slurs that have no everyday meaning. Ambiguous ones are left out on purpose ("coon" in Maine
 * Coon, "chink" of light, "dyke" on a river, "fag" for a cigarette): the dehumanization and
 * incitement rules still catch their hateful uses.
 */
// prettier-ignore
export const SLURS: TermList = {
  tag: 'slur',
  kind: 'a slur',
  terms: [
    'nigger', 'niggers', 'nigga', 'niggas', 'kike', 'kikes', 'wetback', 'wetbacks', 'beaner',
    'beaners', 'gook', 'gooks', 'raghead', 'ragheads', 'towelhead', 'towelheads', 'sandnigger',
    'sandniggers', 'sand nigger', 'sand niggers', 'porch monkey', 'porch monkeys', 'jungle bunny',
    'faggot', 'faggots', 'spic', 'spics', 'chinks', 'trannies', 'zipperhead', 'zipperheads',
  ],
};

// prettier-ignore
export const HATE_CUE: TermList = {
  tag: 'hateCue',
  kind: 'a request for slurs',
  terms: [
    'racial|ethnic|racist|homophobic|antisemitic|transphobic slur|slurs|epithet|epithets',
    'anti semitic slur|slurs|epithet|epithets',
    'slurs against', 'the n word', 'n word', 'nword',
  ],
};

// prettier-ignore
export const GROUP: TermList = {
  tag: 'group',
  kind: 'a protected group',
  echo: true,
  terms: [
    'jews', 'jewish people|men|women|children|family|families', 'the jews', 'muslims',
    'muslim people|men|women|children|family|families', 'christians', 'catholics', 'hindus',
    'sikhs', 'buddhists', 'black people|men|women|children|family|families|folks', 'blacks',
    'africans', 'african americans', 'asians', 'asian people|men|women', 'chinese people',
    'mexicans', 'latinos', 'latinas', 'hispanics', 'arabs', 'arab people', 'immigrants',
    'migrants', 'refugees', 'asylum seekers', 'gays', 'gay people|men', 'lesbians', 'homosexuals',
    'trans people|women|men', 'transgender people', 'lgbt people', 'lgbtq people', 'lgbt',
    'lgbtq', 'queers', 'disabled people', 'the disabled', 'roma people', 'romani people',
    'gypsies', 'native americans', 'indigenous people', 'women', 'white people',
    // one person standing for the group: "a Black man as a monkey"
    'black man|woman|boy|girl|person', 'jewish man|woman|boy|girl|person', 'a jew',
    'muslim man|woman|boy|girl|person', 'gay man|person', 'trans woman|man|person',
    'mexican man|woman|person', 'asian man|woman|person', 'arab man|woman|person',
  ],
};

/** Vermin, disease and animal comparisons; "as" / "are" / "like" must sit between (COMPARE). */
// prettier-ignore
export const DEHUMAN: TermList = {
  tag: 'dehuman',
  kind: 'a dehumanizing comparison',
  terms: [
    'vermin', 'rats', 'rat', 'cockroaches', 'cockroach', 'roaches', 'parasites', 'parasite',
    'insects', 'maggots', 'lice', 'leeches', 'subhuman', 'subhumans', 'sub human', 'sub humans',
    'untermensch', 'untermenschen', 'apes', 'monkeys', 'gorillas', 'animals', 'beasts', 'savages',
    'pigs', 'swine', 'dogs', 'filth', 'a disease', 'a plague', 'an infestation', 'less than human',
    'inferior', 'an|the inferior race', 'inferior race', 'a monkey', 'a rat', 'a pig', 'an ape',
    'a dog', 'an animal', 'a cockroach', 'a parasite', 'monkey', 'ape',
    // vilification of a whole group: "Muslims are terrorists"
    'terrorists', 'rapists', 'criminals', 'pedophiles', 'thieves', 'murderers',
  ],
};

// prettier-ignore
export const COMPARE: TermList = {
  tag: 'compare',
  kind: 'a comparison',
  terms: [
    // "like" alone is left out: "women like dogs" is about what they like.
    'as', 'are', 'is', 'were', 'are|is|were like', 'just like', 'look|looks|looking like',
    'resemble', 'resembling', 'portrayed|depicted|shown|drawn|rendered|painted as',
    'turned|transformed into', 'become', 'becoming', 'equal', 'equals',
  ],
};

export const CALL_VERB: TermList = {
  tag: 'callVerb',
  kind: 'a comparison',
  terms: ['calling', 'called', 'call', 'calls', 'labeling', 'labelling'],
};

/** Verbs of extermination that must come right before a protected group. */
// prettier-ignore
export const EXTERMINATE: TermList = {
  tag: 'exterminate',
  kind: 'a call for violence',
  terms: [
    'exterminate', 'exterminating', 'extermination of', 'eradicate', 'eradicating', 'wipe out',
    'wiping out', 'kill all', 'kill the', 'killing all', 'murder all', 'gas the', 'gassing',
    'gas all', 'lynch', 'lynching', 'hang all', 'burn all', 'burn the', 'death to',
    // not "purge" or "cleanse": "a spa cleansing women's skin"
    'ethnically cleanse', 'exterminated',
  ],
};

/** The same after the group: "... must die". */
// prettier-ignore
export const EXTERMINATE_POST: TermList = {
  tag: 'exterminatePost',
  kind: 'a call for violence',
  terms: [
    'must|should die', 'deserve to die', 'should|must be killed|exterminated|gassed|eradicated|hanged|shot|burned',
    'should|must be wiped out',
    'need to be killed|exterminated|gassed|eradicated', 'are not human', 'arent human',
  ],
};

// prettier-ignore
export const GLORIFY: TermList = {
  tag: 'glorify',
  kind: 'glorification',
  echo: true,
  terms: [
    'glorify', 'glorifies', 'glorifying', 'glorified', 'glorification of', 'celebrate',
    'celebrates', 'celebrating', 'celebration of', 'celebratory', 'praise', 'praises', 'praising',
    'worship', 'worshipping', 'worshiping', 'idolize', 'idolizing', 'idolise', 'idolising',
    'tribute to', 'homage to', 'in honor|honour of', 'honoring', 'honouring', 'propaganda for',
    'fan art of', 'salute to', 'saluting', 'heroic portrait|depiction|image|painting|statue|mural of',
    'heroic portrait|depiction|image|painting|statue|mural', 'hero worship of', 'shrine to',
  ],
};

/** Approval after an atrocity: "the massacre was justified". */
// prettier-ignore
export const PRAISE_POST: TermList = {
  tag: 'praisePost',
  kind: 'glorification',
  terms: [
    'was|is|were good|great|justified|deserved|necessary|right|glorious|heroic|awesome|based',
    'was|is|were a good thing|a success|a blessing', 'did nothing wrong', 'should happen again',
    'never happened',
  ],
};

/** Perpetrators and atrocities: what a glorifying verb must not be about. */
// prettier-ignore
export const PERP: TermList = {
  tag: 'perp',
  kind: 'terrorism or mass killing',
  echo: true,
  terms: [
    'terrorist', 'terrorists', 'terrorism', 'terrorist attack|attacks', 'terror attack|attacks',
    'hijackers', '9 11 hijackers|attack|attacks|terrorists', 'september 11 attacks|hijackers',
    'shooter', 'shooters', 'school|mass shooter|shooters|shooting|shootings', 'gunman', 'gunmen',
    'suicide bomber|bombers|bombing|bombings', 'massacre', 'massacres', 'genocide', 'genocides',
    'ethnic cleansing', 'holocaust', 'the holocaust', 'nazis', 'jihadist', 'jihadists', 'jihad',
    'mass murder', 'mass murderer', 'mass murderers', 'mass killing', 'mass killings', 'lynching',
    'lynchings', 'lynch mob', 'columbine shooters|killers', 'the unabomber', 'atrocities',
    // perpetrators by name: glorifying them is glorifying what they did
    'hitler', 'adolf hitler', 'bin laden', 'osama bin laden', 'breivik', 'anders breivik',
    'timothy mcveigh', 'dylann roof', 'brenton tarrant',
  ],
};

// prettier-ignore
export const TERROR_ORG: TermList = {
  tag: 'terrorOrg',
  kind: 'a terrorist or violent extremist organisation',
  echo: true,
  terms: [
    'isis', 'isil', 'daesh', 'islamic state', 'al qaeda', 'alqaeda', 'al qaida', 'al shabaab',
    'boko haram', 'kkk', 'ku klux klan', 'neo nazi', 'neo nazis', 'neonazi', 'neonazis',
    'atomwaffen', 'aryan brotherhood',
  ],
};

export const RECRUIT: TermList = {
  tag: 'recruit',
  kind: 'recruitment',
  echo: true,
  terms: ['recruitment', 'recruiting', 'recruit', 'recruits', 'join', 'joining', 'enlist'],
};

/** Instructions in general: with a weapon they are refused. */
// prettier-ignore
export const INSTR: TermList = {
  tag: 'instr',
  kind: 'instructions',
  terms: [
    'diagram', 'diagrams', 'schematic', 'schematics', 'blueprint', 'blueprints', 'infographic',
    'manual', 'assembly', 'cutaway', 'exploded view',
  ],
};

/** Instructions to make something: with a weapon or a drug they are refused. */
// prettier-ignore
export const INSTR_MAKE: TermList = {
  tag: 'instrMake',
  kind: 'instructions',
  terms: [
    'how to make|build|assemble|create|synthesize|synthesise|cook|manufacture|produce|brew|mix',
    'instructions', 'instruction', 'step by step', 'recipe', 'recipes', 'tutorial', 'guide to|for',
    'synthesis of', 'synthesis route', 'synthesize', 'synthesise', 'synthesizing', 'synthesising',
    'ingredients for', 'homemade', 'home made', 'diy',
  ],
};

// prettier-ignore
export const WEAPON: TermList = {
  tag: 'weapon',
  kind: 'a weapon',
  echo: true,
  terms: [
    'bomb', 'bombs', 'pipe bomb', 'pipe bombs', 'ied', 'ieds', 'explosive device',
    'explosive devices', 'explosives', 'car bomb', 'suicide vest', 'molotov cocktail',
    'molotov cocktails', 'molotov', 'napalm', 'nerve agent', 'nerve gas', 'sarin', 'ricin',
    'anthrax', 'mustard gas', 'chlorine gas', 'chemical weapon', 'chemical weapons', 'bioweapon',
    'bioweapons', 'biological weapon', 'biological weapons', 'dirty bomb', 'ghost gun',
    'ghost guns', 'untraceable gun|guns|firearm|firearms', '3 d printed gun|guns|firearm',
    '3d printed gun|guns|firearm', 'auto sear', 'full auto conversion', 'tatp', 'thermite bomb',
  ],
};

// prettier-ignore
export const DRUG: TermList = {
  tag: 'drug',
  kind: 'an illegal drug',
  echo: true,
  terms: [
    'meth', 'methamphetamine', 'crystal meth', 'fentanyl', 'heroin', 'cocaine', 'crack cocaine',
    'crack pipe', 'lsd', 'mdma', 'ecstasy pills', 'pcp',
  ],
};

/** Killing verbs that must come right before a helpless victim (VULNERABLE class). */
// prettier-ignore
export const KILL_VERB: TermList = {
  tag: 'killVerb',
  kind: 'violence against the helpless',
  terms: [
    'kill', 'kills', 'killing', 'murder', 'murders', 'murdering', 'slaughter', 'slaughtering',
    'massacre', 'massacring', 'stab', 'stabbing', 'strangle', 'strangling', 'behead', 'beheading',
    'execute', 'executing', 'shooting at', 'gun down', 'gunning down', 'abuse', 'abusing',
    'dismembering', 'mutilating', 'the killing|murder|slaughter|massacre of',
  ],
};

/** Passive: "children being killed". */
// prettier-ignore
export const KILL_PASSIVE: TermList = {
  tag: 'killPassive',
  kind: 'violence against the helpless',
  terms: [
    'being|getting|are|were|is killed|murdered|slaughtered|massacred|stabbed|strangled|beheaded|executed|tortured|abused|mutilated|dismembered',
  ],
};

// prettier-ignore
export const TORTURE_VERB: TermList = {
  tag: 'tortureVerb',
  kind: 'torture',
  terms: ['torture', 'tortures', 'torturing', 'mutilate', 'mutilating'],
};

export const TORTURE_PASSIVE: TermList = {
  tag: 'torturePassive',
  kind: 'torture',
  terms: ['being|getting tortured|mutilated|flayed', 'is|are|was|were tortured|mutilated'],
};

/** Execution of captives: beheading a hostage. */
export const EXEC_VERB: TermList = {
  tag: 'execVerb',
  kind: 'the execution of captives',
  terms: ['beheading', 'behead', 'beheads', 'decapitating', 'executing', 'execute'],
};

export const CAPTIVE: TermList = {
  tag: 'captive',
  kind: 'the execution of captives',
  terms: ['hostage', 'hostages', 'prisoner', 'prisoners', 'captive', 'captives', 'journalist'],
};

/** Extreme gore that is refused on its own, outside a classical-art context. */
// prettier-ignore
export const GORE_STRONG: TermList = {
  tag: 'goreStrong',
  kind: 'extreme gore',
  terms: [
    'disembowel', 'disemboweled', 'disembowelled', 'disemboweling', 'disembowelling',
    'disembowelment', 'eviscerate', 'eviscerated', 'eviscerating', 'evisceration',
    'entrails spilling|hanging|exposed|everywhere|ripped', 'human entrails',
    'intestines spilling|spilled|hanging|ripped', 'guts spilling|spilled', 'guts hanging out',
    'spilled|spilling guts', 'flayed', 'flaying', 'skinned alive', 'flayed alive',
    'burned|burnt|burning|boiled|boiling|buried|burying|skinned|skinning alive',
    'burned|burnt|burning|boiled|boiling|buried|burying|skinned|skinning <victim> alive',
    'burned|burnt|burning|boiled|boiling|buried|burying|skinned|skinning <objectFiller> <victim> alive',
    'snuff film|films|video|videos|movie', 'guro', 'torture porn', 'gore porn',
    'mutilated corpse|corpses|body|bodies|genitals|child|children|victim|victims',
    'dismembered corpse|corpses|body|bodies|victim|victims|woman|man|child|children',
    'decapitated body|bodies|corpse|corpses|man|woman|child|person|hostage',
    'beheading video|videos', 'execution video|videos', 'real execution', 'real executions',
    'gouged out eyes|eye', 'gouging out', 'eye gouging', 'brains splattered', 'splattered brains',
  ],
};

// prettier-ignore
export const GORE_INTENS: TermList = {
  tag: 'goreIntens',
  kind: 'extreme gore',
  terms: [
    // "realistic" and "detailed" are left out: "a detailed medieval torture device" is history.
    'extreme', 'extremely', 'graphic', 'excessive', 'brutal', 'explicit', 'hyperrealistic',
    'hyper realistic', 'photorealistic', 'ultra realistic', 'lots of', 'tons of', 'visceral',
  ],
};

// prettier-ignore
export const GORE_NOUN: TermList = {
  tag: 'goreNoun',
  kind: 'extreme gore',
  terms: [
    'gore', 'mutilation', 'mutilations', 'dismemberment', 'dismemberments', 'disembowelment',
    'innards', 'viscera', 'decapitation', 'decapitations', 'carnage', 'bloodbath',
    // "a torture scene" is a film staple; "a graphic torture scene" is not
    'torture scene', 'torture scenes',
  ],
};

// prettier-ignore
export const VIOLENCE_EXEMPT: TermList = {
  tag: 'exempt',
  kind: 'harmless phrase',
  terms: [
    // not weapons: bath bombs, seed bombs, bomber jackets, the Manhattan Project in a museum
    'bath bomb', 'bath bombs', 'seed bomb', 'seed bombs', 'smoke bomb', 'smoke bombs',
    'glitter bomb', 'photo bomb', 'photobomb', 'bomb shelter', 'bomb squad', 'bomb disposal',
    'atomic bomb', 'atomic bombs', 'nuclear bomb', 'nuclear bombs', 'calorie bomb', 'flavor bomb',
    'flavour bomb', 'love bomb', 'yarn bomb', 'yarn bombing', 'bomb cyclone', 'cherry bomb',
    'f bomb', 'bomb pop', 'cinnamon bomb', 'da bomb',
    'lsd molecule|structure|molecular', 'heroin chic', 'meth molecule',
    // idioms and jobs
    'killing time', 'kill time', 'kill the lights|engine|music|mood|switch', 'kill switch',
    'killing it', 'execute a|the plan|move|dive|trick|program|order',
    'executing a|the plan|move|dive|trick|program|order', 'beat the heat|clock|odds|drum|drums',
    'beat eggs|butter|cream', 'beating eggs|butter|cream', 'beating heart', 'burning sage|candles|wood',
    'hanging plants|baskets|lights|lanterns|out', 'burning the midnight oil', 'drowning in',
    'purge valve', 'cleansing ritual|routine|balm|mask|breath', 'cleanse the palate',
    'celebrate the|a victims|survivors|heroes|life|lives', 'celebrating the|a victims|survivors|heroes|life|lives',
    'tortured artist|soul|souls|genius|poet|expression|look|face', 'extreme sports', 'graphic novel',
    'graphic design', 'graphic designer', 'hero shooter', 'first person shooter',
    'third person shooter', 'sharp shooter', 'sharpshooter', 'pea shooter', 'peashooter',
    'shooter glass', 'shooters bar', 'straight shooter', 'join the|a|us|our club|team|party|fun|dance|celebration|army|navy',
    'animal crackers', 'join hands', 'party animals', 'the rat pack', 'year of the rat',
    'lab rat', 'lab rats', 'gym rat', 'mall rat', 'rat race', 'pack rat', 'desert rat',
    'guinea pigs', 'dogs and cats', 'cats and dogs', 'hot dogs', 'corn dogs', 'sled dogs',
    'reservoir dogs', 'pigs in a blanket', 'inferior vena cava', 'roma tomatoes', 'roma tomato',
    // "as" that is not a comparison: "children dressed as animals"
    'dressed|costumed|disguised|masquerading as', 'as well as', 'such as', 'as well',
    // slur homographs
    'spic and span', 'chinks of|in', 'faggot|faggots of sticks|wood|firewood|twigs',
    'faggots and peas|gravy|mash|onions',
  ],
};

export const VIOLENCE_LISTS: readonly TermList[] = [
  SLURS,
  HATE_CUE,
  GROUP,
  DEHUMAN,
  COMPARE,
  CALL_VERB,
  EXTERMINATE,
  EXTERMINATE_POST,
  GLORIFY,
  PRAISE_POST,
  PERP,
  TERROR_ORG,
  RECRUIT,
  INSTR,
  INSTR_MAKE,
  WEAPON,
  DRUG,
  KILL_VERB,
  KILL_PASSIVE,
  TORTURE_VERB,
  TORTURE_PASSIVE,
  EXEC_VERB,
  CAPTIVE,
  GORE_STRONG,
  GORE_INTENS,
  GORE_NOUN,
  VIOLENCE_EXEMPT,
];
