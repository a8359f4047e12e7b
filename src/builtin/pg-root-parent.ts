/**
 * Where a server's data root goes instead of os.tmpdir(): `rtcap run` points it into the run's
 * private directory, so whatever way the server ends, removing that directory removes the data.
 * A module of its own so that `rtcap run`, which only sets it, does not load the database client
 * (pg) that server/db/embedded.ts needs.
 */
export const PG_ROOT_PARENT_ENV = 'RTCAP_PG_ROOT_PARENT';
