// Response shapes the tests read, written once.

/** The contract's TokenResponse. */
export interface Token {
  access_token: string;
  token_type: string;
  expires_in: number;
  expires_at: string;
}

/** The fields of the contract's public user shape (UserOutput), sorted. */
export const USER_FIELDS = [
  'bio',
  'bot',
  'created_at',
  'deactivated_at',
  'display_name',
  'has_api_access',
  'is_bot',
  'is_managed',
  'uid',
  'user_tag',
];
