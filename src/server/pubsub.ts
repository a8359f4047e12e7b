/**
 * PubSub groups: the key a channel subscribes under and which read permission a fan-out needs.
 *
 * PubSub keys follow Realtime: `<tenant>:<subtopic>` for public channels and
 * `<tenant>-private:<subtopic>` for private ones, so a public and a private channel of the
 * same name never see each other's messages (docs/PROTOCOL.md §3.1).
 */

/**
 * Which read permission a fan-out needs (docs/PROTOCOL.md §6.2 "Read permission at delivery time").
 */
export type Gate = 'broadcast' | 'presence' | 'none';

export function pubsubKey(tenantId: string, subtopic: string, isPrivate: boolean): string {
  return isPrivate ? `${tenantId}-private:${subtopic}` : `${tenantId}:${subtopic}`;
}
