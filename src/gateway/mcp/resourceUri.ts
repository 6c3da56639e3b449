export const RESOURCE_PREFIX = 'atelier://images/';
