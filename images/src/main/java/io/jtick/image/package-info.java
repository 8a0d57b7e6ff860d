/** OCI images of the jtick services written without a container daemon or registry: deterministic layers, config and layout. */
package io.jtick.image;
