/** The Helm chart's tooling without a helm CLI: lint and template through Helm's own library (helm-java). */
package io.jtick.helm;
