/** The SDK's version: the docmill server version it was packed with (`make sdk-js`). */
export const VERSION = "0.0.0-devel";
