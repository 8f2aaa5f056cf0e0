/** The first Fetch version that names topics by id (KIP-516). */
export const FIRST_TOPIC_ID_FETCH_VERSION = 13;

/** The Fetch version whose layout the sim's messages and size model follow. */
export const FETCH_API_VERSION = FIRST_TOPIC_ID_FETCH_VERSION;
