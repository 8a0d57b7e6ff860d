/** Studies over the HDB's storage, not the services' path: the compression study, page-cache drops, io.q's column-file probe. */
package io.jtick.core.hdb;
