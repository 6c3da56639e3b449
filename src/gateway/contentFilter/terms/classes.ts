/**
 * Word classes usable as `<name>` slots in phrases. Numbers are classed in code (normalize.ts):
 * any whole number under 18 also carries `<u18>`.
 */
// prettier-ignore
export const U18_WORDS = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven',
  'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen',
] as const;

/** Ordinals for "fifth grader". */
// prettier-ignore
const GRADE_ORDINALS = [
  'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth',
];

/**
 * Colour names, for "nude and gold" and "nude pink lipstick". Skin and hair words (black, white,
 * brown, tan, blonde) are left out on purpose: "a nude black woman" is not a colour.
 */
// prettier-ignore
const COLOURS = [
  'beige', 'pink', 'blush', 'cream', 'ivory', 'taupe', 'mocha', 'gold', 'silver', 'grey', 'gray',
  'blue', 'red', 'green', 'navy', 'champagne', 'khaki', 'olive', 'burgundy', 'coral', 'lilac',
];

/**
 * Colours, cosmetics and garments: "nude" before one of these is a colour, not a state. Not
 * "top", "toned" or "aesthetic": "nude top model", "nude toned body" are about people.
 */
// prettier-ignore
const NUDE_AS_COLOUR = [
  // garments and accessories
  'dress', 'dresses', 'gown', 'gowns', 'heels', 'heel', 'pumps', 'shoes', 'shoe', 'sandals',
  'boots', 'flats', 'loafers', 'mules', 'bra', 'bras', 'underwear', 'lingerie', 'tights',
  'stockings', 'pantyhose', 'bodysuit', 'leotard', 'skirt', 'blouse', 'sweater', 'coat',
  'trench', 'bag', 'handbag', 'purse', 'clutch', 'lining', 'fabric', 'mesh', 'tulle', 'silk',
  'satin', 'slip', 'suit', 'swimsuit', 'bikini', 'outfit', 'outfits', 'look', 'illusion', 'corset',
  'gloves', 'scarf', 'belt', 'leather', 'sweatshirt', 'trousers', 'pants', 'jacket',
  // colour words
  'tone', 'tones', 'colour', 'color', 'colored', 'coloured', 'colors', 'colours', 'shade',
  'shades', 'palette', 'hue', 'hues', 'tint', 'tinted', 'neutral', 'neutrals',
  'paint', 'walls', 'wall', 'decor', 'interior', 'ceramics', 'vase',
  // cosmetics
  'lipstick', 'lipsticks', 'lip', 'lips', 'gloss', 'liner', 'makeup', 'nails', 'nail', 'polish',
  'manicure', 'pedicure', 'eyeshadow', 'foundation', 'concealer', 'swatch', 'swatches',
];

/** "naked" before one of these means bare or plain: the naked eye, a naked flame. */
// prettier-ignore
const NAKED_AS_BARE = [
  // Not "light", "rock", "wood", "gun": "naked light-skinned", "naked rock climbing",
  // "naked wood nymph" are about people.
  'eye', 'eyes', 'flame', 'flames', 'truth', 'ambition', 'lunch', 'mole', 'singularity', 'wire',
  'wires', 'bulb', 'bulbs', 'lightbulb', 'branch', 'branches', 'tree', 'trees', 'steel', 'blade',
  'blades', 'sword', 'cake', 'cakes', 'city', 'hillside', 'hills', 'wall', 'walls', 'fear',
  'aggression', 'greed', 'emotion', 'emotions', 'power', 'honesty', 'lamp', 'concrete', 'brick',
  'bricks', 'juice', 'chef', 'ape', 'civilization', 'hardware', 'plaster', 'canvas',
];

/** "a 12 year old ___" that is not a person: whisky, a car, a dog. */
// prettier-ignore
const NON_PERSON = [
  // Not animals, cars, houses or photos: "a 12 year old cat girl", "a 16 year old car model"
  // and "a 15 year old house party" are about people.
  'whisky', 'whiskey', 'scotch', 'bourbon', 'wine', 'rum', 'cognac', 'brandy', 'port', 'cheese',
  'building', 'laptop', 'phone', 'computer', 'tree', 'oak', 'vine', 'vines', 'tradition',
  'company', 'brand', 'business', 'painting', 'bottle', 'barrel', 'cask', 'console', 'tortoise',
  'turtle', 'parrot', 'goldfish', 'mattress', 'sofa', 'guitar', 'violin', 'piano', 'recipe', 'map',
  'sourdough', 'starter', 'vintage', 'malt', 'blend', 'tawny', 'bonsai', 'jeans', 'boots',
];

/** Porn used figuratively for lavish photos of things: food porn, cabin porn. */
// prettier-ignore
const PORN_FIGURATIVE = [
  // Not "room", "space", "city", "car": "hotel room porn" is not about architecture.
  'food', 'earth', 'cabin', 'architecture', 'book', 'books', 'tool', 'tools', 'gadget', 'map',
  'data', 'design', 'interior', 'ruin', 'ruins', 'sky', 'plant', 'coffee', 'cake', 'nature',
  'travel', 'kitchen', 'wanderlust',
];

/** Victims for "killing ___": the helpless. */
// prettier-ignore
const VULNERABLE = [
  'child', 'children', 'kid', 'kids', 'baby', 'babies', 'infant', 'infants', 'toddler', 'toddlers',
  'newborn', 'newborns', 'schoolchildren', 'students', 'pupils', 'boy', 'boys', 'girl', 'girls',
];

/** People or animals as the object of torture or execution. */
// prettier-ignore
const VICTIMS = [
  ...VULNERABLE, 'man', 'men', 'woman', 'women', 'person', 'people', 'prisoner', 'prisoners',
  'captive', 'captives', 'hostage', 'hostages', 'victim', 'victims', 'guy', 'someone', 'slave',
  'slaves', 'civilian', 'civilians', 'puppy', 'puppies', 'kitten', 'kittens', 'dog', 'dogs', 'cat',
  'cats', 'animal', 'animals', 'horse', 'pet', 'pets', 'him', 'her', 'them',
];

/** Modifiers allowed between a verb and its object in the violence patterns. */
// prettier-ignore
const OBJECT_FILLERS = [
  'a', 'an', 'the', 'some', 'little', 'young', 'innocent', 'helpless', 'small', 'school', 'all',
  'those', 'these', 'two', 'three', 'several', 'many', 'defenseless', 'defenceless', 'crying',
  'screaming', 'live', 'living', 'real', 'his', 'her', 'their', 'my', 'our', 'poor',
];

export const WORD_CLASSES: Record<string, readonly string[]> = {
  u18: U18_WORDS,
  gradeOrdinal: GRADE_ORDINALS,
  colour: COLOURS,
  nudeColour: NUDE_AS_COLOUR,
  nakedBare: NAKED_AS_BARE,
  nonPerson: NON_PERSON,
  pornFigurative: PORN_FIGURATIVE,
  vulnerable: VULNERABLE,
  victim: VICTIMS,
  objectFiller: OBJECT_FILLERS,
};

/** Words that say the subject is female or male; "topless" is nudity unless only male cues. */
// prettier-ignore
export const FEMALE_WORDS: ReadonlySet<string> = new Set([
  'woman', 'women', 'girl', 'girls', 'female', 'females', 'she', 'her', 'hers', 'herself', 'lady',
  'ladies', 'mermaid', 'mermaids', 'wife', 'girlfriend', 'bride', 'actress', 'goddess', 'queen',
  'princess', 'waitress', 'mother', 'mom', 'mum', 'sister', 'daughter', 'maiden', 'nymph', 'nymphs',
  'babe', 'milf', 'wives', 'brides', 'queens', 'goddesses',
]);

// prettier-ignore
export const MALE_WORDS: ReadonlySet<string> = new Set([
  'man', 'men', 'guy', 'guys', 'male', 'males', 'he', 'him', 'his', 'himself', 'boy', 'boys',
  'gentleman', 'gentlemen', 'dude', 'dudes', 'father', 'dad', 'husband', 'boyfriend', 'groom',
  'fisherman', 'fishermen', 'king', 'prince', 'brother', 'son', 'monk', 'monks', 'husbands',
  'kings', 'grooms', 'fathers',
]);
