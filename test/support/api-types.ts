// Response shapes the tests read, written once.

/** The contract's TokenResponse. */
export interface Token {
  access_token: string;
  token_type: string;
  expires_in: number;
  expires_at: string;
}
