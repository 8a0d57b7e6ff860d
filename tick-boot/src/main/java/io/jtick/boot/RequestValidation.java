package io.jtick.boot;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.annotation.Configuration;
import org.springframework.validation.Errors;
import org.springframework.validation.SmartValidator;
import org.springframework.validation.Validator;
import org.springframework.validation.beanvalidation.OptionalValidatorFactoryBean;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Spring MVC's validator ({@code @Valid} on a request argument) is Bean Validation built at its first
 * use, not at start-up: Spring MVC would otherwise start Hibernate Validator with every service (~550
 * classes an idle service holds; the jar is on the class path for springdoc's schemas). The services'
 * properties are checked in code ({@link PropertyChecks}).
 *
 * <p>It validates {@code @Valid}/{@code @Validated} arguments (groups passed on) with a Bean Validation
 * factory of its own, outside the Spring context (the default message interpolation, no Spring-made
 * constraint validators). Spring MVC's method validation of constraints put straight on
 * {@code @RequestParam} or {@code @PathVariable} is off, since it would unwrap the Bean Validation
 * validator as Spring MVC starts. No jtick endpoint uses either.
 */
@Configuration(proxyBeanMethods = false)
public class RequestValidation implements WebMvcConfigurer, DisposableBean {
    private final Object lock = new Object();
    private OptionalValidatorFactoryBean built;

    @Override
    public Validator getValidator() {
        return new SmartValidator() {
            /** As Bean Validation: any type (Spring MVC asks for every bound argument; only {@code @Valid} ones are validated). */
            @Override
            public boolean supports(final Class<?> type) {
                return true;
            }

            @Override
            public void validate(final Object target, final Errors errors) {
                beanValidation().validate(target, errors);
            }

            @Override
            public void validate(final Object target, final Errors errors, final Object... validationHints) {
                beanValidation().validate(target, errors, validationHints);
            }
        };
    }

    /** Whether Bean Validation has been built (a request asked for it). */
    boolean built() {
        synchronized (lock) {
            return built != null;
        }
    }

    private SmartValidator beanValidation() {
        synchronized (lock) {
            if (built == null) {
                final OptionalValidatorFactoryBean v = new OptionalValidatorFactoryBean();
                v.afterPropertiesSet();
                built = v;
            }
            return built;
        }
    }

    @Override
    public void destroy() {
        synchronized (lock) {
            if (built != null) {
                built.destroy();
            }
        }
    }
}
