/** The fields of a key as the admin API and `dossier keys … --json` print it, in order (docs/contract.md §5). */
export const KEY_FIELDS = [
  'id',
  'name',
  'owner',
  'scopes',
  'daily_limit',
  'created_at',
  'revoked_at',
  'expires_at',
  'used_today',
  'status',
];
