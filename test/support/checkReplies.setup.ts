import { checkEveryFetch } from './openapiReplies';

// Every fetch a test makes to a gateway it registered (support/gateway.ts does) is checked
// against the OpenAPI document; other servers' replies pass untouched.
checkEveryFetch();
